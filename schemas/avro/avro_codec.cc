#include "schemas/avro/avro_codec.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include <snappy.h>
#include <zlib.h>

namespace sluice {
namespace {

error bad(std::string message) {
  return make_error(error_code::invalid_avro, std::move(message));
}

error too_large(std::string_view codec, size_t max_bytes) {
  return make_error(error_code::too_large, std::string(codec) + ": decompresses to more than " +
                                               std::to_string(max_bytes) + " bytes");
}

// out.size() <- n, keeping its first `keep` bytes. A new buffer is made exactly n long:
// std::string's own growth may double its capacity, past the bound n respects.
void resize_exactly(std::string& out, size_t n, size_t keep) {
  if (n <= out.capacity()) {
    out.resize(n);
    return;
  }
  std::string bigger(n, '\0');
  bigger.replace(0, keep, out, 0, keep);
  out.swap(bigger);
}

std::string hex32(uint32_t v) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

}  // namespace

result<avro_codec> parse_avro_codec(std::string_view name) {
  if (name.empty() || name == "null") return avro_codec::null;
  if (name == "deflate") return avro_codec::deflate;
  if (name == "snappy") return avro_codec::snappy;
  return make_error(error_code::unsupported,
                    "Avro codec \"" + std::string(name.substr(0, 32)) +
                        "\" is not supported (only \"null\", \"deflate\" and \"snappy\")");
}

avro_decompressor::avro_decompressor() = default;
avro_decompressor::~avro_decompressor() = default;

void avro_decompressor::inflate_end::operator()(z_stream_s* z) const {
  inflateEnd(z);
  delete z;
}

std::optional<error> avro_decompressor::decompress(avro_codec codec, std::string_view block,
                                                   size_t max_bytes, std::string& out) {
  std::optional<error> err;
  switch (codec) {
    case avro_codec::deflate:
      err = inflate(block, max_bytes, out);
      break;
    case avro_codec::snappy:
      err = unsnappy(block, max_bytes, out);
      break;
    case avro_codec::null:
      if (block.size() > max_bytes) {
        err = too_large("null", max_bytes);
      } else {
        out.assign(block);
      }
      break;
  }
  if (err) out.clear();  // no partial records; the capacity stays for the next block
  return err;
}

std::optional<error> avro_decompressor::inflate(std::string_view block, size_t max_bytes,
                                                std::string& out) {
  constexpr size_t max_chunk = std::numeric_limits<uInt>::max();
  if (block.size() > max_chunk) return too_large("deflate", max_chunk);
  if (!_z) {
    auto z = std::make_unique<z_stream>();  // zeroed: zlib's default allocator
    if (inflateInit2(z.get(), -15) != Z_OK) return bad("deflate: zlib could not start");
    _z.reset(z.release());
  } else if (inflateReset(_z.get()) != Z_OK) {
    return bad("deflate: zlib could not restart");
  }
  z_stream& z = *_z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
  z.avail_in = static_cast<uInt>(block.size());
  // One byte of room more than allowed: filling it tells a block that inflates past the bound
  // without ever holding more than the bound.
  const size_t room = max_bytes + (max_bytes < std::numeric_limits<size_t>::max() ? 1 : 0);
  // The first guess follows the block, not the buffer's capacity: resize() zero-fills, and a
  // message of many tiny blocks after a big one would fill the whole buffer for each of them.
  // Doubling from there fills no more than the block inflates to.
  resize_exactly(out, std::min(room, std::max(4 * block.size(), size_t{1} << 10)), 0);
  size_t produced = 0;
  for (;;) {
    if (produced > max_bytes) return too_large("deflate", max_bytes);
    if (produced == out.size()) resize_exactly(out, std::min(room, 2 * out.size()), produced);
    const size_t avail = std::min(out.size() - produced, max_chunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    z.avail_out = static_cast<uInt>(avail);
    const int rc = ::inflate(&z, Z_NO_FLUSH);
    produced += avail - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;  // progress was made: more input or more room is needed
    // Z_BUF_ERROR with room left: no progress possible, the input ended inside the stream.
    if (rc == Z_BUF_ERROR) return bad("deflate: data cut short");
    return bad(std::string("deflate: ") + (z.msg ? z.msg : "corrupt data"));
  }
  if (produced > max_bytes) return too_large("deflate", max_bytes);
  // Bytes after the end of the DEFLATE data (z.avail_in) are ignored, as Java's Inflater and
  // Python's zlib ignore them: fastavro leaves 3 bytes of the zlib trailer there.
  out.resize(produced);
  return std::nullopt;
}

std::optional<error> avro_decompressor::unsnappy(std::string_view block, size_t max_bytes,
                                                 std::string& out) {
  if (block.size() < 4) return bad("snappy: no CRC32 after the data");
  const std::string_view data = block.substr(0, block.size() - 4);
  size_t size = 0;
  if (!snappy::GetUncompressedLength(data.data(), data.size(), &size)) {
    return bad("snappy: corrupt length");
  }
  if (size > max_bytes) return too_large("snappy", max_bytes);  // before allocating it
  resize_exactly(out, size, 0);
  if (!snappy::RawUncompress(data.data(), data.size(), out.data())) {
    return bad("snappy: corrupt data");
  }
  const auto* c = reinterpret_cast<const unsigned char*>(block.data() + data.size());
  const uint32_t expected =
      (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | uint32_t{c[3]};
  const auto actual =
      static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), out.size()));
  if (actual != expected) {
    return bad("snappy: CRC32 of the records is " + hex32(actual) + ", the block says " +
               hex32(expected));
  }
  return std::nullopt;
}

}  // namespace sluice
