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

// A character beyond the Basic Multilingual Plane: four bytes in UTF-8 (lead byte 0xF0-0xF4).
bool beyond_bmp(std::string_view name) {
  return std::any_of(name.begin(), name.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0xF0; });
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
    for (const std::string* name : {&t.schema, &t.name}) {
      if (beyond_bmp(*name)) {
        return "the target name `" + *name +
               "` has a character beyond the Basic Multilingual Plane (4 bytes in UTF-8): "
               "MariaDB keeps identifiers in utf8mb3 and cannot name a database or table so";
      }
    }
    return std::nullopt;
  };
  return rules;
}

}  // namespace sluice::mdb
