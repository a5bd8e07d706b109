#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "core/model/result.h"

namespace sluice {

// Streams an Avro object container file block by block (`sluice replay --file`), so that a
// file of any size is read in bounded memory: each block comes out as a small container of
// its own (the file's header + that one block), which the Datastream decoder reads as it
// reads a Kafka message.
//
//   open(in):     reads the header (magic, metadata map, sync marker) and keeps its bytes
//   next(out):    out <- header + the next block; its records are numbered from
//                 first_record() (the index in the file, across blocks); false at the end
//
// A block larger than max_block_bytes, a cut header or block and a wrong sync marker are
// errors (invalid_avro / too_large); the block's records are checked by the decoder.
//
// Lifecycle: one per file. Threading: one thread.
class avro_block_stream {
 public:
  explicit avro_block_stream(size_t max_block_bytes) : _max(max_block_bytes) {}

  std::optional<error> open(std::istream& in);
  result<bool> next(std::string& out);

  uint64_t first_record() const { return _first; }
  uint64_t records() const { return _count; }  // in the block next() returned last
  uint64_t bytes_read() const { return _read; }

 private:
  bool read_long(int64_t& out, std::string* copy);
  bool read_exact(size_t n, std::string& into);

  size_t _max;
  std::istream* _in = nullptr;
  std::string _header;
  std::string _sync;
  uint64_t _first = 0;
  uint64_t _count = 0;
  uint64_t _read = 0;
};

}  // namespace sluice
