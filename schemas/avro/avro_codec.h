#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/result.h"

struct z_stream_s;  // zlib's inflate state (zlib.h stays out of this header)

namespace sluice {

// The codecs of an Avro object container's blocks (Avro 1.11 spec, "Required Codecs"), named
// by the header's avro.codec:
//   null     the block's data is the records
//   deflate  raw DEFLATE (RFC 1951, no zlib header or checksum)
//   snappy   Snappy-compressed records, then the big-endian CRC32 of the uncompressed records
enum class avro_codec : uint8_t { null, deflate, snappy };

// The codec avro.codec names ("" and an absent key are "null"); any other name is an
// `unsupported` error naming it.
result<avro_codec> parse_avro_codec(std::string_view name);

// Decompresses the blocks of deflate and snappy containers into a buffer its caller owns and
// reuses (no allocation per block once that buffer and the zlib state have grown).
//
//   decompress(codec, block, max_bytes, out):  out <- the records of block
//
// Hostile input is bounded: more than max_bytes of records is too_large (naming the bound)
// and is never allocated; cut or corrupt data and a wrong Snappy CRC are invalid_avro (bytes
// after the end of the DEFLATE data are ignored, as other readers do). The caller names the
// block in the error.
//
// Lifecycle: one per container reader. Threading: as its reader.
class avro_decompressor {
 public:
  avro_decompressor();
  ~avro_decompressor();
  avro_decompressor(const avro_decompressor&) = delete;
  avro_decompressor& operator=(const avro_decompressor&) = delete;

  // codec is deflate or snappy (null is copied as it is). On an error out is empty.
  std::optional<error> decompress(avro_codec codec, std::string_view block, size_t max_bytes,
                                  std::string& out);

 private:
  std::optional<error> inflate(std::string_view block, size_t max_bytes, std::string& out);
  static std::optional<error> unsnappy(std::string_view block, size_t max_bytes, std::string& out);

  struct inflate_end {
    void operator()(z_stream_s* z) const;
  };
  std::unique_ptr<z_stream_s, inflate_end> _z;  // made by the first deflate block, then reset
};

}  // namespace sluice
