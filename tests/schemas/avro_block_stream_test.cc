#include "schemas/avro/avro_block_stream.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "schemas/datastream/datastream_decoder.h"
#include "tests/schemas/avro_fixture.h"

namespace sluice {
namespace {

std::string fixture(const std::string& name) {
  return avro_fixture(name);
}

}  // namespace

TEST_CASE("Avro files stream block by block into containers the decoder reads") {
  const std::string whole = fixture("mysql_orders.avro");
  std::istringstream in(whole);
  avro_block_stream blocks(1 << 20);
  REQUIRE_FALSE(blocks.open(in));
  table_catalog catalog;
  datastream_decoder decoder(catalog, datastream_options{});
  decode_output out;
  std::string block;
  size_t block_count = 0;
  uint64_t expected_first = 0;
  for (;;) {
    auto more = blocks.next(block);
    REQUIRE(more);
    if (!*more) break;
    ++block_count;
    CHECK(blocks.first_record() == expected_first);
    expected_first += blocks.records();
    raw_message msg;
    msg.topic = "t";
    msg.value = block;
    REQUIRE_FALSE(decoder.decode(msg, out));
  }
  CHECK(block_count > 1);  // the fixture is written with a small sync interval
  CHECK(out.changes.size() == 5);
  CHECK(blocks.bytes_read() == whole.size());
}

TEST_CASE("Avro files: a cut file and a file that is not Avro are errors") {
  const std::string whole = fixture("mysql_orders.avro");
  std::istringstream cut(whole.substr(0, whole.size() - 10));
  avro_block_stream blocks(1 << 20);
  REQUIRE_FALSE(blocks.open(cut));
  std::string block;
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) {
    auto more = blocks.next(block);
    if (!more)
      failed = true;
    else if (!*more)
      break;
  }
  CHECK(failed);

  std::istringstream json("{\"a\":1}");
  avro_block_stream other(1 << 20);
  CHECK(other.open(json));

  std::istringstream small(whole);
  avro_block_stream tiny(64);  // a block bigger than the bound
  auto err = tiny.open(small);
  CHECK(err);  // the header alone exceeds 64 bytes
}

}  // namespace sluice
