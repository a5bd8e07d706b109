#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/column_type.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

// The column types of each table's Connect schema, built once per schema and shared by the
// changes it describes (change::types). The schema block repeats on every message of a
// topic: the cache compares what the schema says of each column, in place, with an owned
// copy of the schema the table's types were built from (no write, no allocation); only a
// different schema builds (and allocates) new column_types. Changes built before keep the
// old, immutable ones.
//
//   types_of(table, schema):
//     empty schema (no {schema, payload} wrapper)   -> null
//     schema == entry[table].schema                 -> entry[table].types (same pointer)
//     else entry[table] <- {copy of schema, debezium_column_type() of each field}, keeping
//          the old pointer when the new types equal the old ones
//
// Lifecycle: one per decoder, entries for the life of the pipeline (one per table). The
// table entries are the catalog's, whose addresses are stable. Threading: as its decoder.
class debezium_type_cache {
 public:
  const shared_column_types& types_of(const table_entry* table,
                                      std::span<const connect_field_schema> schema);
  // How many times a schema was mapped (each allocates): the steady state adds none.
  size_t builds() const { return _builds; }

 private:
  // A connect_field_schema that owns its text.
  struct stored_field {
    std::string field, type, name, items_type, items_name, source_type;
    std::optional<int32_t> scale, precision, length, source_length, source_scale;
    bool operator==(const connect_field_schema& f) const;
  };
  struct entry {
    std::vector<stored_field> schema;
    shared_column_types types;
  };
  static bool same_schema(const std::vector<stored_field>& stored,
                          std::span<const connect_field_schema> schema);
  shared_column_types build(std::span<const connect_field_schema> schema);

  std::unordered_map<const table_entry*, entry> _entries;
  const shared_column_types _none;
  size_t _builds = 0;
};

}  // namespace sluice
