#include "schemas/debezium/debezium_type_cache.h"

#include <cstdint>
#include <optional>

#include "schemas/debezium/debezium_column_type.h"

namespace sluice {
namespace {

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
  entry& e = _entries[table];
  if (e.types && same_schema(e.schema, schema)) return e.types;
  e.schema.clear();
  for (const connect_field_schema& f : schema) {
    e.schema.push_back({std::string(f.field), std::string(f.type), std::string(f.name),
                        std::string(f.items_type), std::string(f.items_name),
                        std::string(f.source_type), f.scale, f.precision, f.length, f.source_length,
                        f.source_scale});
  }
  shared_column_types types = build(schema);
  // A different schema may still say the same types (PostgreSQL's unconstrained NUMERIC is
  // length 0 in snapshot records, 131089 in streamed ones): the changes keep sharing them.
  if (!e.types || !same_columns(*e.types, *types)) e.types = std::move(types);
  return e.types;
}

bool debezium_type_cache::stored_field::operator==(const connect_field_schema& f) const {
  return field == f.field && type == f.type && name == f.name && scale == f.scale &&
         precision == f.precision && length == f.length && items_type == f.items_type &&
         items_name == f.items_name && source_type == f.source_type &&
         source_length == f.source_length && source_scale == f.source_scale;
}

bool debezium_type_cache::same_schema(const std::vector<stored_field>& stored,
                                      std::span<const connect_field_schema> schema) {
  if (stored.size() != schema.size()) return false;
  for (size_t i = 0; i < stored.size(); ++i) {
    if (!(stored[i] == schema[i])) return false;
  }
  return true;
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
