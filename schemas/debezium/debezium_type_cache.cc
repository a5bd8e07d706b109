#include "schemas/debezium/debezium_type_cache.h"

#include <cstdint>
#include <cstring>
#include <optional>

#include "schemas/debezium/debezium_column_type.h"

namespace sluice {
namespace {

// Length-prefixed, so that no two different schemas write the same signature.
void append(std::string& out, std::string_view text) {
  const auto size = static_cast<uint32_t>(text.size());
  char prefix[sizeof size];
  std::memcpy(prefix, &size, sizeof size);
  out.append(prefix, sizeof prefix);
  out.append(text);
}

void append(std::string& out, std::optional<int32_t> v) {
  out.push_back(v ? '\1' : '\0');
  const int32_t n = v.value_or(0);
  char bytes[sizeof n];
  std::memcpy(bytes, &n, sizeof n);
  out.append(bytes, sizeof bytes);
}

bool same_columns(const column_types& a, const column_types& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const column_types::column& x = a.columns[i];
    const column_types::column& y = b.columns[i];
    if (x.name != y.name || x.type != y.type || x.source_type != y.source_type) return false;
  }
  return true;
}

}  // namespace

const shared_column_types& debezium_type_cache::types_of(
    const table_entry* table, std::span<const connect_field_schema> schema) {
  if (schema.empty()) return _none;
  write_signature(schema, _signature);
  entry& e = _entries[table];
  if (e.types && e.signature == _signature) return e.types;
  e.signature = _signature;
  shared_column_types types = build(schema);
  // A different schema may still say the same types (PostgreSQL's unconstrained NUMERIC is
  // length 0 in snapshot records, 131089 in streamed ones): the changes keep sharing them.
  if (!e.types || !same_columns(*e.types, *types)) e.types = std::move(types);
  return e.types;
}

void debezium_type_cache::write_signature(std::span<const connect_field_schema> schema,
                                          std::string& out) {
  out.clear();
  for (const connect_field_schema& f : schema) {
    append(out, f.field);
    append(out, f.type);
    append(out, f.name);
    append(out, f.scale);
    append(out, f.precision);
    append(out, f.length);
    append(out, f.items_type);
    append(out, f.items_name);
    append(out, f.source_type);
    append(out, f.source_length);
    append(out, f.source_scale);
  }
}

shared_column_types debezium_type_cache::build(std::span<const connect_field_schema> schema) {
  ++_builds;
  auto types = std::make_shared<column_types>();
  types->columns.reserve(schema.size());
  for (const connect_field_schema& f : schema) {
    types->columns.push_back(column_types::column{std::string(f.field), debezium_column_type(f),
                                                  debezium_source_type(f)});
  }
  return types;
}

}  // namespace sluice
