#include "sinks/postgres/plan/pg_rules.h"

#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {

target_rules pg_target_rules(std::string state_schema) {
  target_rules rules;
  rules.max_identifier_bytes = pg_max_identifier_bytes;
  rules.reserved =
      [state = std::move(state_schema)](const target_table& t) -> std::optional<std::string> {
    if (t.schema == state) {
      return "the target schema \"" + t.schema +
             "\" is sluice's state schema (postgres.state.schema)";
    }
    if (t.schema.starts_with("pg_")) {
      return "the target schema \"" + t.schema + "\" is reserved for PostgreSQL's catalogs";
    }
    if (t.schema == "information_schema") {
      return "the target schema \"information_schema\" is PostgreSQL's";
    }
    return std::nullopt;
  };
  return rules;
}

}  // namespace sluice
