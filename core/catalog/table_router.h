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

struct routing_options {
  // ${topic}, ${database}, ${schema}, ${table}; ${schema} falls back to the database where
  // the source has no schema (MySQL).
  std::string name_format = "${schema}.${table}";
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
