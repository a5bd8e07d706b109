#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sluice::mdb {

// MariaDB's identifier rules, the sink's alone: at most 64 characters (MariaDB refuses longer
// names; sluice refuses them first, as a dead letter), and always backquoted with embedded
// backquotes doubled. A "schema" is a database.
inline constexpr size_t max_identifier_chars = 64;

// `name` with embedded backquotes doubled: the only way identifiers reach SQL.
std::string quote_identifier(std::string_view name);
// `db`.`table`
std::string quote_table(std::string_view database, std::string_view table);

}  // namespace sluice::mdb
