#include "sinks/mariadb/plan/mdb_rules.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "sinks/mariadb/sql/mdb_identifier.h"

namespace sluice::mdb {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

constexpr std::string_view system_databases[] = {"mysql", "information_schema",
                                                 "performance_schema", "sys"};

}  // namespace

target_rules mariadb_target_rules(std::string state_database) {
  target_rules rules;
  rules.max_identifier_bytes = max_identifier_chars;
  rules.reserved =
      [state = std::move(state_database)](const target_table& t) -> std::optional<std::string> {
    if (same_name(t.schema, state)) {
      return "the target database `" + t.schema + "` is sluice's state database";
    }
    for (std::string_view system : system_databases) {
      if (same_name(t.schema, system)) {
        return "the target database `" + t.schema + "` is the server's own (" +
               std::string(system) + ")";
      }
    }
    return std::nullopt;
  };
  return rules;
}

}  // namespace sluice::mdb
