#include "sinks/mariadb/sql/sql_fragments.h"

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/sql/write_sql.h"

namespace sluice::mdb::sql {

namespace {

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789ABCDEF";
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
}

}  // namespace

std::string quote_literal(std::string_view text) {
  if (text.find('\\') != std::string_view::npos) {
    std::string out = "_utf8mb4 X'";
    append_hex(out, text);
    return out + "'";
  }
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back(c);
    out.push_back(c);
  }
  return out + "'";
}

std::string hex_literal(std::string_view bytes) {
  std::string out = "X'";
  append_hex(out, bytes);
  return out + "'";
}

std::string json_path(std::string_view member) {
  std::string path = "$.\"";
  for (char c : member) {
    if (c == '"' || c == '\\') path.push_back('\\');
    path.push_back(c);
  }
  path.push_back('"');
  return quote_literal(path);
}

std::string greater_value(const std::string& a, const std::string& b) {
  return "(" + a + " IS NOT NULL AND (" + b + " IS NULL OR CAST(" + a + " AS BINARY) > CAST(" + b +
         " AS BINARY)))";
}

std::string older_than(const std::string& csn, const std::string& incoming) {
  return "(" + csn + " IS NULL OR " + csn + " < " + incoming + ")";
}

std::string key_match(const std::vector<const column_def*>& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (!out.empty()) out += " AND ";
    out += "d." + quote_identifier(key[i]->name) + " = s." + key_alias(i);
  }
  return out;
}

std::string counting(const std::string& column, const std::string& expr) {
  return "IF((" + std::string(found_counter) + " := COALESCE(" + found_counter +
         ", 0) + 1) IS NULL, " + column + ", " + expr + ")";
}

std::string key_hash(const std::string& key) {
  return "UNHEX(SHA2(" + key + ", 256))";
}

std::string with_tombstone(const write_sql_context& ctx, const std::string& stage) {
  // Two probes, each an equality on the whole primary key (target_schema, target_table,
  // key_hash): `key_hash IN (<per row>, <constant>)` made MariaDB 10.11 read every tombstone of
  // the table for each staged row (ref on the first two parts only), quadratic in the deletes.
  // The target is bound in each probe: a one-row derived table holding it once fails on the
  // second execution of the prepared statement (10.11: "Unknown column" in the merged
  // subquery).
  const auto probe = [&](const std::string& key) {
    return "(SELECT MAX(tb.csn) FROM " + ctx.tombstones +
           " tb WHERE tb.target_schema = ? AND tb.target_table = ? AND tb.key_hash = " +
           key_hash(key) + ")";
  };
  // The newer of the two (NULL > x is not true: a missing key tombstone yields the table's).
  return "(SELECT s.*, IF(s._sluice_tomb_table IS NULL OR s._sluice_tomb_key > "
         "s._sluice_tomb_table, s._sluice_tomb_key, s._sluice_tomb_table) AS _sluice_tomb FROM "
         "(SELECT s.*, " +
         probe("s._sluice_key") + " AS _sluice_tomb_key, " + probe("''") +
         " AS _sluice_tomb_table FROM " + quote_identifier(stage) + " s) AS s) AS s";
}

}  // namespace sluice::mdb::sql
