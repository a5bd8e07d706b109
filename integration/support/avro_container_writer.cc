#include "integration/support/avro_container_writer.h"

#include <cstring>
#include <stdexcept>

namespace sluice::testing {
namespace {

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("avro_container_writer: ") + what + ": " + avro_strerror());
}

void check(int rc, const char* what) {
  if (rc) fail(what);
}

avro_schema_t parse(std::string_view json) {
  avro_schema_t s = nullptr;
  check(avro_schema_from_json_length(json.data(), json.size(), &s), "schema");
  return s;
}

void make_value(avro_schema_t schema, avro_value_iface_t*& iface, avro_value_t& value) {
  iface = avro_generic_class_from_schema(schema);
  if (!iface || avro_generic_value_new(iface, &value)) fail("generic value");
}

std::string binary(avro_value_t& v) {
  size_t size = 0;
  check(avro_value_sizeof(&v, &size), "sizeof");
  std::string out(size, '\0');
  avro_writer_t writer = avro_writer_memory(out.data(), static_cast<int64_t>(size));
  const int rc = avro_value_write(writer, &v);
  avro_writer_free(writer);
  check(rc, "write");
  return out;
}

avro_value_t field(avro_value_t& record, const char* name) {
  avro_value_t f;
  check(avro_value_get_by_name(&record, name, &f, nullptr), name);
  return f;
}

constexpr const char* header_schema =
    R"({"type":"record","name":"org.apache.avro.file.Header","fields":[)"
    R"({"name":"magic","type":{"type":"fixed","name":"Magic","size":4}},)"
    R"({"name":"meta","type":{"type":"map","values":"bytes"}},)"
    R"({"name":"sync","type":{"type":"fixed","name":"Sync","size":16}}]})";
// A block: its count of records, their size and bytes (Avro bytes are exactly a long size and
// the bytes), the sync marker.
constexpr const char* block_schema =
    R"({"type":"record","name":"Block","fields":[{"name":"count","type":"long"},)"
    R"({"name":"objects","type":"bytes"},)"
    R"({"name":"sync","type":{"type":"fixed","name":"Sync","size":16}}]})";

}  // namespace

avro_container_writer::avro_container_writer(std::string_view schema_json)
    : _schema_json(schema_json) {
  for (size_t i = 0; i < _sync.size(); ++i)
    _sync[i] = static_cast<char>(0x5a ^ (i * 37));
  _schema = parse(schema_json);
  _header_schema = parse(header_schema);
  _block_schema = parse(block_schema);
  make_value(_schema, _iface, _value);
  make_value(_header_schema, _header_iface, _header);
  make_value(_block_schema, _block_iface, _block);

  avro_value_t magic = field(_header, "magic");
  check(avro_value_set_fixed(&magic, const_cast<char*>("Obj\x01"), 4), "magic");
  avro_value_t meta = field(_header, "meta");
  avro_value_t entry;
  check(avro_value_add(&meta, "avro.schema", &entry, nullptr, nullptr), "meta");
  check(avro_value_set_bytes(&entry, _schema_json.data(), _schema_json.size()), "avro.schema");
  check(avro_value_add(&meta, "avro.codec", &entry, nullptr, nullptr), "meta");
  check(avro_value_set_bytes(&entry, const_cast<char*>("null"), 4), "avro.codec");
  avro_value_t sync = field(_header, "sync");
  check(avro_value_set_fixed(&sync, _sync.data(), _sync.size()), "sync");
  _header_bytes = binary(_header);
  sync = field(_block, "sync");
  check(avro_value_set_fixed(&sync, _sync.data(), _sync.size()), "sync");
}

avro_container_writer::~avro_container_writer() {
  avro_value_decref(&_block);
  avro_value_decref(&_header);
  avro_value_decref(&_value);
  avro_value_iface_decref(_block_iface);
  avro_value_iface_decref(_header_iface);
  avro_value_iface_decref(_iface);
  avro_schema_decref(_block_schema);
  avro_schema_decref(_header_schema);
  avro_schema_decref(_schema);
}

std::string avro_container_writer::record() {
  return binary(_value);
}

std::string avro_container_writer::container(const std::string* records, size_t count) {
  std::string objects;
  for (size_t i = 0; i < count; ++i)
    objects += records[i];
  avro_value_t v = field(_block, "count");
  check(avro_value_set_long(&v, static_cast<int64_t>(count)), "count");
  v = field(_block, "objects");
  check(avro_value_set_bytes(&v, objects.data(), objects.size()), "objects");
  return _header_bytes + binary(_block);
}

}  // namespace sluice::testing
