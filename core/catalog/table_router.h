#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/catalog/table_catalog.h"
#include "core/model/result.h"

namespace sluice {

// Where a source table lands in the replica.
struct target_table {
  std::string schema;
  std::string name;
  friend auto operator<=>(const target_table&, const target_table&) = default;
};

// How the format is read (table.name.style): sluice's own placeholders, the target split at
// the first dot; or as a Connect JDBC sink names its tables, so that a replica it built is
// written in place (SPEC §6a "Naming parity"):
//   debezium (3.x collection.name.format): ${topic} is the topic with its dots replaced by
//     `_`, ${source.db}, ${source.schema}, ${source.table}; the dots of the result qualify;
//   confluent (table.name.format): ${topic} as it is; the dots of the result qualify.
// Qualifying dots (both peers parse the name as [catalog.][schema.]table): the last part is
// the table, the one before it the schema, a third (a catalog: the database connected to)
// is dropped; more parts are an error.
enum class name_style : uint8_t { sluice, debezium, confluent };

struct routing_options {
  // ${topic}, ${database}, ${schema}, ${table}; ${schema} falls back to the database where
  // the source has no schema (MySQL). Other styles: name_style above.
  std::string name_format = "${schema}.${table}";
  name_style style = name_style::sluice;
  bool lower_case = true;  // identifier.case: lower | preserve
  // tables.<source>.target, by the source name as configured (table_name::matches).
  std::map<std::string, std::string> explicit_targets;
  std::string default_schema = "public";  // when the format yields no schema part
  // The target database's limit on an identifier, in bytes (0: none). The sink sets its own
  // (sinks/postgres/sql/pg_identifier.h): a longer name is an error, never truncated.
  size_t max_identifier_bytes = 0;
};

// identifier.case: lower folds ASCII letters only, as PostgreSQL folds unquoted identifiers.
std::string lower_ascii(std::string_view s);

// Routes source tables to target tables (SPEC §4 "Table routing"). Pure and std-only so that
// the rules are unit-tested without a database. Empty names, names with NUL bytes and names
// over the target's limit (routing_options::max_identifier_bytes) are an error.
class table_router {
 public:
  explicit table_router(routing_options options) : _options(std::move(options)) {}

  result<target_table> route(const table_name& source, std::string_view topic) const;
  // A column's target name under the case policy; an error if it is over 63 bytes or empty.
  result<std::string> column(std::string_view source_name) const;

 private:
  routing_options _options;
};

}  // namespace sluice
