#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <avro.h>

#include "core/model/result.h"
#include "schemas/avro/avro_codec.h"
#include "schemas/avro/avro_schema_info.h"

namespace sluice {

// True when bytes start as an Avro object container does ("Obj" 0x01).
bool is_avro_container(std::string_view bytes);

// A writer schema as Avro C holds it: the parsed schema, its generic value class and one
// value of it (RAII over the three handles). parse() is how the decoders have Avro C check
// a schema (names, defaults, types it can build values of) before they read records with
// it themselves (avro_values.h).
// Lifecycle: built once per distinct schema text. Threading: one user at a time.
class avro_record_schema {
 public:
  static result<std::unique_ptr<avro_record_schema>> parse(std::string_view json);
  ~avro_record_schema();
  avro_record_schema(const avro_record_schema&) = delete;
  avro_record_schema& operator=(const avro_record_schema&) = delete;

  avro_value_t& value() { return _value; }

 private:
  avro_record_schema() = default;
  // Destroyed in reverse: the value, then its class, then the schema.
  avro_schema_t _schema = nullptr;
  avro_value_iface_t* _iface = nullptr;
  avro_value_t _value{};
};

// Reads one Avro object container held in memory (Avro 1.11 spec, "Object Container Files"):
// the header (magic, metadata map with avro.schema and avro.codec, sync marker), then
// blocks of records, each block ended by the sync marker. The "null", "deflate" and "snappy"
// codecs are read (avro_codec.h): a compressed block is decompressed into a buffer this
// reader owns and reuses. Its caller decodes each record from the front of the block's
// remaining bytes (avro_value_reader) and says how many it took.
//
//   open(bytes)            header -> schema_json(), codec parsed
//   next(rest)             the bytes from the next record to the end of its block; false
//                          after the last record
//   consumed(n)            the record just read took n bytes
//
// A block must hold exactly its count of records: bytes left over, a record running past
// its block, a wrong sync marker, a count or size that does not fit the bytes, corrupt
// compressed data are errors (invalid_avro) naming the block. The blocks of one container
// may decompress to max_decompressed_bytes in all, not each (a Kafka message of 200 deflate
// blocks would otherwise carry 200 times the bound): past that, too_large naming the bound,
// found while inflating, before anything past it is held. Views point into the bytes given
// to open() or, for a compressed block, into this reader's buffer (until the next block).
//
// Lifecycle: one per decoder, reopened for each message (it keeps the decompression state
// and its buffer). Threading: as its decoder.
class avro_container_reader {
 public:
  explicit avro_container_reader(size_t max_decompressed_bytes);
  ~avro_container_reader();
  avro_container_reader(const avro_container_reader&) = delete;
  avro_container_reader& operator=(const avro_container_reader&) = delete;

  std::optional<error> open(std::string_view bytes);
  std::string_view schema_json() const { return _schema_json; }

  // The bytes from the next record to the end of its block; false at the end of the
  // container. The view lives until the next block. Each call counts one record.
  result<bool> next(std::string_view& rest);
  // The record next() gave took this many bytes from the front of rest.
  void consumed(size_t bytes);

  // The index of the record next() returned last, from 0, across blocks.
  uint64_t record_index() const { return _index - 1; }
  // What the compressed blocks read so far inflated to, in all (0 with codec null).
  size_t decompressed_bytes() const { return _decompressed; }

 private:
  std::optional<error> next_block();

  size_t _max_decompressed;  // the blocks of one container, in all
  size_t _decompressed = 0;  // so far, in this container
  avro_codec _codec = avro_codec::null;
  avro_decompressor _decompressor;
  std::string _buffer;     // a compressed block's records, reused across blocks and messages
  std::string_view _rest;  // the bytes after the current block
  std::string_view _data;  // the current block's records (in the message or in _buffer)
  size_t _pos = 0;         // the next record's offset in _data
  std::string_view _schema_json;
  std::array<char, 16> _sync{};
  uint64_t _block = 0;         // blocks read, for messages
  int64_t _left_in_block = 0;  // records not yet read from the current block
  uint64_t _index = 0;
};

}  // namespace sluice
