// Avro containers with the deflate and snappy codecs (Avro 1.11 "Required Codecs"): the
// fixtures are the same events as mysql_orders.avro written by fastavro with each codec
// (tests/fixtures/datastream_avro/generate.py). Hostile blocks are real compressed data,
// modified here: a flipped CRC byte, cut data, a block that inflates past the bound.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "schemas/avro/avro_block_stream.h"
#include "schemas/avro/avro_codec.h"
#include "schemas/datastream/datastream_decoder.h"
#include "tests/schemas/avro_builder.h"
#include "tests/schemas/avro_fixture.h"

namespace sluice {
namespace {

// The codec variants of mysql_orders.avro (tests/fixtures/datastream_avro_codecs/, written by
// tests/fixtures/datastream_avro/generate.py).
std::string codec_fixture(const std::string& name) {
  return avro_fixture("../datastream_avro_codecs/" + name);
}

using avro_build::put_long;
using avro_build::raw_deflate;
using avro_build::snappy_block;

int64_t take_long(std::string_view& in) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    REQUIRE(!in.empty());
    const auto b = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
}

// A written container taken apart at its framing, so that a test can change one block's data
// and put it back together.
struct framed {
  std::string header;  // magic, metadata, sync marker
  std::string sync;
  std::vector<std::pair<int64_t, std::string>> blocks;  // record count, data

  explicit framed(std::string_view in) {
    const size_t whole = in.size();
    in.remove_prefix(4);
    for (int64_t count; (count = take_long(in)) != 0;) {
      for (int64_t i = 0; i < 2 * count; ++i)
        in.remove_prefix(static_cast<size_t>(take_long(in)));
    }
    sync = in.substr(0, 16);
    in.remove_prefix(16);
    header = std::string(in.data() - (whole - in.size()), whole - in.size());
    while (!in.empty()) {
      const int64_t count = take_long(in);
      const auto size = static_cast<size_t>(take_long(in));
      blocks.emplace_back(count, std::string(in.substr(0, size)));
      REQUIRE(in.substr(size, 16) == sync);
      in.remove_prefix(size + 16);
    }
  }

  std::string bytes() const {
    std::string out = header;
    for (const auto& [count, data] : blocks) {
      put_long(out, count);
      put_long(out, static_cast<int64_t>(data.size()));
      out += data;
      out += sync;
    }
    return out;
  }
};

bool has(const error& e, std::string_view text) {
  return e.message.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("Avro codecs: deflate and snappy containers decode to exactly the null one's changes") {
  datastream_fixture plain;
  REQUIRE_FALSE(plain.decode(avro_fixture("mysql_orders.avro")));
  REQUIRE(plain.out.changes.size() == 5);
  for (const std::string codec : {"deflate", "snappy"}) {
    CAPTURE(codec);
    const std::string bytes = codec_fixture("mysql_orders_" + codec + ".avro");
    REQUIRE(bytes.find(codec) != std::string::npos);  // avro.codec in the header
    REQUIRE(framed(bytes).blocks.size() == 4);        // several blocks, each compressed
    datastream_fixture f;
    const auto err = f.decode(bytes);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    REQUIRE(f.out.changes.size() == plain.out.changes.size());
    for (size_t i = 0; i < f.out.changes.size(); ++i) {
      CAPTURE(i);
      const change& a = f.out.changes[i];
      const change& b = plain.out.changes[i];
      CHECK(a.op == b.op);
      CHECK(a.table->name.qualified() == b.table->name.qualified());
      CHECK(a.key == b.key);
      CHECK(a.old_key == b.old_key);
      CHECK(a.after == b.after);
      CHECK(a.partial == b.partial);
      CHECK(a.seq == b.seq);
      CHECK(a.source.tx == b.source.tx);
      CHECK(a.source.source_ts == b.source.source_ts);
      CHECK(a.source.read == b.source.read);
      REQUIRE(a.types);
      REQUIRE(a.types->columns.size() == b.types->columns.size());
      for (size_t k = 0; k < a.types->columns.size(); ++k) {
        CHECK(a.types->columns[k].name == b.types->columns[k].name);
        CHECK(a.types->columns[k].type == b.types->columns[k].type);
      }
    }
  }
}

TEST_CASE("Avro codecs: bytes after the end of the DEFLATE data are ignored, as fastavro writes") {
  // fastavro writes zlib.compress(records)[2:-1]: three bytes of the Adler-32 trailer follow.
  framed c(codec_fixture("mysql_orders_deflate.avro"));
  std::string out;
  avro_decompressor d;
  REQUIRE_FALSE(d.decompress(avro_codec::deflate, c.blocks[0].second, 1 << 20, out));
  const size_t records = out.size();
  c.blocks[0].second += "junk";
  REQUIRE_FALSE(d.decompress(avro_codec::deflate, c.blocks[0].second, 1 << 20, out));
  CHECK(out.size() == records);
  datastream_fixture f;
  REQUIRE_FALSE(f.decode(c.bytes()));
  CHECK(f.out.changes.size() == 5);
}

TEST_CASE("Avro codecs: replay --file streams a compressed container block by block") {
  for (const std::string codec : {"deflate", "snappy"}) {
    CAPTURE(codec);
    std::istringstream in(codec_fixture("mysql_orders_" + codec + ".avro"));
    avro_block_stream blocks(1 << 20);
    REQUIRE_FALSE(blocks.open(in));
    datastream_fixture f;
    std::string block;
    size_t count = 0;
    while (true) {
      auto more = blocks.next(block);
      REQUIRE(more);
      if (!*more) break;
      REQUIRE_FALSE(f.decode(block));
      ++count;
    }
    CHECK(count == 4);
    CHECK(f.out.changes.size() == 5);
  }
}

TEST_CASE("Avro codecs: a compressed container cut anywhere is an error or whole blocks") {
  for (const std::string codec : {"deflate", "snappy"}) {
    CAPTURE(codec);
    const std::string whole = codec_fixture("mysql_orders_" + codec + ".avro");
    for (size_t n = 0; n < whole.size(); ++n) {
      datastream_fixture f;
      auto err = f.decode(std::string_view(whole).substr(0, n));
      if (err) {
        CHECK(f.out.changes.empty());
      } else {
        CHECK(f.out.changes.size() < 5);
      }
    }
  }
}

TEST_CASE("Avro codecs: a snappy block whose CRC32 does not match is an error naming it") {
  framed c(codec_fixture("mysql_orders_snappy.avro"));
  c.blocks[2].second.back() ^= 0x01;  // the CRC's last byte
  datastream_fixture f;
  auto err = f.decode(c.bytes());
  REQUIRE(err);
  CHECK(err->code == error_code::invalid_avro);
  CHECK(has(*err, "block 2"));
  CHECK(has(*err, "CRC32"));
  CHECK(f.out.changes.empty());
}

TEST_CASE("Avro codecs: corrupt compressed blocks are errors naming the block, never a crash") {
  datastream_fixture f;
  SUBCASE("deflate data cut short") {
    framed c(codec_fixture("mysql_orders_deflate.avro"));
    c.blocks[1].second.resize(c.blocks[1].second.size() / 2);
    auto err = f.decode(c.bytes());
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
    CHECK_MESSAGE(has(*err, "block 1: deflate: data cut short"), err->message);
  }
  SUBCASE("every byte of a deflate or snappy block flipped in turn") {
    for (const std::string codec : {"deflate", "snappy"}) {
      CAPTURE(codec);
      const framed whole(codec_fixture("mysql_orders_" + codec + ".avro"));
      for (size_t i = 0; i < whole.blocks[1].second.size(); ++i) {
        framed c = whole;
        c.blocks[1].second[i] ^= 0x55;
        datastream_fixture g;
        if (g.decode(c.bytes())) CHECK(g.out.changes.empty());
      }
    }
  }
  SUBCASE("a snappy block too short to hold its CRC32") {
    framed c(codec_fixture("mysql_orders_snappy.avro"));
    c.blocks[3].second.resize(3);
    auto err = f.decode(c.bytes());
    REQUIRE(err);
    CHECK(has(*err, "block 3: snappy: no CRC32"));
  }
  SUBCASE("a codec no writer of Datastream uses") {
    std::string bytes = codec_fixture("mysql_orders_snappy.avro");
    bytes.replace(bytes.find("snappy"), 6, "zstdxx");
    auto err = f.decode(bytes);
    REQUIRE(err);
    CHECK(err->code == error_code::unsupported);
    CHECK(has(*err, "\"zstdxx\""));
  }
  CHECK(f.out.changes.empty());
}

TEST_CASE("Avro codecs: a block that decompresses past the message limit is too_large") {
  const std::string zeros(2 << 20, '\0');  // 2 MiB: a few KB compressed
  framed c(codec_fixture("mysql_orders_deflate.avro"));
  c.blocks = {{1, raw_deflate(zeros)}};
  SUBCASE("deflate") {}
  SUBCASE("snappy") {
    c = framed(codec_fixture("mysql_orders_snappy.avro"));
    c.blocks = {{1, snappy_block(zeros)}};
  }
  const std::string bytes = c.bytes();
  REQUIRE(bytes.size() < 200'000);
  datastream_fixture f(1 << 20);
  auto err = f.decode(bytes);
  REQUIRE(err);
  CHECK(err->code == error_code::too_large);
  CHECK(has(*err, "block 0"));
  CHECK(has(*err, "more than 1048576 bytes"));
  CHECK(f.out.changes.empty());
}

TEST_CASE("Avro codecs: a decompression bomb never grows the buffer past the bound") {
  const std::string zeros(2 << 20, '\0');
  constexpr size_t bound = 1 << 20;
  for (auto codec : {avro_codec::deflate, avro_codec::snappy}) {
    CAPTURE(static_cast<int>(codec));
    avro_decompressor d;
    std::string out;
    const std::string block =
        codec == avro_codec::deflate ? raw_deflate(zeros) : snappy_block(zeros);
    auto err = d.decompress(codec, block, bound, out);
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK(out.capacity() <= bound + 1);  // deflate: one byte past it tells the bomb
  }
}

TEST_CASE("Avro codecs: the bound is exact and the buffer is reused across blocks") {
  const std::string data(100'000, 'x');
  avro_decompressor d;
  std::string out;
  for (auto codec : {avro_codec::deflate, avro_codec::snappy}) {
    CAPTURE(static_cast<int>(codec));
    const std::string block = codec == avro_codec::deflate ? raw_deflate(data) : snappy_block(data);
    REQUIRE_FALSE(d.decompress(codec, block, data.size(), out));
    CHECK(out == data);
    auto err = d.decompress(codec, block, data.size() - 1, out);
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK(out.empty());  // no partial records after an error
    // Steady state: a block no larger than one before it fills the same buffer.
    REQUIRE_FALSE(d.decompress(codec, block, data.size(), out));
    const char* at = out.data();
    const std::string smaller(data.size() / 2, 'y');
    const std::string small_block =
        codec == avro_codec::deflate ? raw_deflate(smaller) : snappy_block(smaller);
    REQUIRE_FALSE(d.decompress(codec, small_block, data.size(), out));
    CHECK(out == smaller);
    CHECK(out.data() == at);
  }
}

TEST_CASE("Avro codecs: the header's avro.codec names one of null, deflate, snappy") {
  CHECK(*parse_avro_codec("") == avro_codec::null);
  CHECK(*parse_avro_codec("null") == avro_codec::null);
  CHECK(*parse_avro_codec("deflate") == avro_codec::deflate);
  CHECK(*parse_avro_codec("snappy") == avro_codec::snappy);
  auto bzip2 = parse_avro_codec("bzip2");
  REQUIRE_FALSE(bzip2);
  CHECK(bzip2.err().code == error_code::unsupported);
  CHECK(has(bzip2.err(), "\"bzip2\""));
}

}  // namespace sluice
