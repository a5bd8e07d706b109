#include "sinks/mariadb/sql/mdb_identifier.h"

namespace sluice::mdb {

std::string quote_identifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out += '`';
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  out += '`';
  return out;
}

std::string quote_table(std::string_view database, std::string_view table) {
  return quote_identifier(database) + "." + quote_identifier(table);
}

}  // namespace sluice::mdb
