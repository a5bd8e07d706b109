#pragma once

#include <snappy.h>
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::avro_build {

// Avro written byte by byte for tests (Avro 1.11 spec, "Binary Encoding" and "Object Container
// Files"): what a hostile writer can put in a message, which Avro C's writer would refuse to.
// Used by the unit tests (tests/schemas/) and, through hostile_avro.h, the end-to-end bounds
// test (integration/e2e/).

// long and int: a zig-zag varint.
inline void put_long(std::string& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
}

// bytes and string: the length, then the bytes.
inline void put_bytes(std::string& out, std::string_view b) {
  put_long(out, static_cast<int64_t>(b.size()));
  out.append(b);
}

// The sync marker of every container built here.
inline const std::string& sync_marker() {
  static const std::string sync(16, '\x5a');
  return sync;
}

// A container: the header (avro.schema, avro.codec), then each block (its record count and
// its data, already compressed for a codec other than null), each followed by the marker.
inline std::string container(std::string_view schema,
                             const std::vector<std::pair<int64_t, std::string>>& blocks,
                             std::string_view codec = "null") {
  std::string out("Obj\x01", 4);
  put_long(out, 2);
  put_bytes(out, "avro.schema");
  put_bytes(out, schema);
  put_bytes(out, "avro.codec");
  put_bytes(out, codec);
  put_long(out, 0);
  out += sync_marker();
  for (const auto& [count, data] : blocks) {
    put_long(out, count);
    put_bytes(out, data);
    out += sync_marker();
  }
  return out;
}

// Raw DEFLATE (no zlib header), as Avro's deflate codec writes it, by zlib itself.
inline std::string raw_deflate(std::string_view data, int level = Z_DEFAULT_COMPRESSION) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

// Snappy data then the big-endian CRC32 of the uncompressed data, as Avro's snappy codec.
inline std::string snappy_block(std::string_view data) {
  std::string out;
  snappy::Compress(data.data(), data.size(), &out);
  const auto crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>(crc >> shift));
  return out;
}

// An array (or map) of items that encode to 0 bytes (null, an empty record, fixed(0)), about
// `bytes` long: block headers only, each claiming as many items as there are bytes after it
// (what a reader that charges each item one byte of what is left lets through), then the
// end. A reader that does not bound the blocks together reads ~bytes²/5 items.
inline std::string zero_byte_items(size_t bytes) {
  std::string tail(1, '\0');  // the count 0 that ends the array
  std::string header;
  while (tail.size() < bytes) {
    header.clear();
    put_long(header, static_cast<int64_t>(tail.size()));
    tail.insert(0, header);
  }
  return tail;
}

}  // namespace sluice::avro_build
