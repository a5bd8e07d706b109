#pragma once

#include <array>
#include <string>
#include <string_view>

#include <avro.h>

namespace sluice::testing {

// Writes Avro object containers (Avro 1.11 spec, "Object Container Files") for benchmarks and
// tests, every byte written by Avro C's generic writer.
//
// Why not avro_file_writer: Avro C writes the header's schema with its own schema-to-JSON,
// which drops logicalType (decimal, timestamp-micros, ...) and custom properties, so its
// containers lose the column types Datastream's carry. The spec defines the header and each
// block as Avro data themselves — the header a record {magic: fixed(4), meta: map<bytes>,
// sync: fixed(16)}, a block {count: long, objects: bytes (size + the records), sync} — so this
// writer writes both with Avro C from those schemas, the writer schema's own text in
// meta["avro.schema"], codec "null".
//
// Lifecycle: one per writer schema. Threading: one thread.
class avro_container_writer {
 public:
  // schema_json: the writer schema as it goes into the header, verbatim.
  explicit avro_container_writer(std::string_view schema_json);
  ~avro_container_writer();
  avro_container_writer(const avro_container_writer&) = delete;
  avro_container_writer& operator=(const avro_container_writer&) = delete;

  // A generic value of the writer schema (Avro C's class of it): set it, then call record().
  avro_value_t& value() { return _value; }
  // The header's length: every container of this writer starts with the same header.
  size_t header_size() const { return _header_bytes.size(); }
  // value() in Avro binary.
  std::string record();
  // A container of one block holding these records (each Avro binary of the writer schema).
  std::string container(const std::string* records, size_t count);
  std::string container(const std::string& record) { return container(&record, 1); }

 private:
  std::string _schema_json;
  std::array<char, 16> _sync{};
  avro_schema_t _schema = nullptr, _header_schema = nullptr, _block_schema = nullptr;
  avro_value_iface_t *_iface = nullptr, *_header_iface = nullptr, *_block_iface = nullptr;
  avro_value_t _value{}, _header{}, _block{};
  std::string _header_bytes;  // written once
};

}  // namespace sluice::testing
