#include "sinks/mariadb/sql/sql_fragments.h"

#include "core/model/row_key.h"
#include "sinks/mariadb/sql/meta_columns.h"

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
  // The newer of two (NULL > x is not true: a missing one yields the other).
  const auto newer = [](const std::string& a, const std::string& b) {
    return "IF(" + b + " IS NULL OR " + a + " > " + b + ", " + a + ", " + b + ")";
  };
  std::string probes = probe("s._sluice_key") + " AS _sluice_tomb_key, ";
  std::string key_tomb = "s._sluice_tomb_key";
  if (ctx.shard_key >= 0) {
    probes += probe(shard_key("s." + key_alias(static_cast<size_t>(ctx.shard_key)))) +
              " AS _sluice_tomb_shard, ";
    key_tomb = newer(key_tomb, "s._sluice_tomb_shard");
  }
  return "(SELECT s.*, " + newer(key_tomb, "s._sluice_tomb_table") +
         " AS _sluice_tomb FROM (SELECT s.*, " + probes + probe("''") +
         " AS _sluice_tomb_table FROM " + quote_identifier(stage) + " s) AS s) AS s";
}

size_t tombstone_params(const write_sql_context& ctx) {
  return ctx.shard_key >= 0 ? 6 : 4;
}

std::string shard_key(const std::string& text) {
  // The canonical form of the empty text is the value's framing alone: its kind, then the
  // terminator. Taken from row_key itself, so that the two cannot drift apart.
  static const std::string empty = [] {
    row_key key{{"shard"}, {value::string("")}, {}};
    canonicalize_key(key, {column_class::text});
    return key.canonical;
  }();
  // The text's UTF-8 bytes, whatever the column's character set (an adopted table's may not be
  // utf8mb4).
  return "CONCAT(" + hex_literal(empty.substr(0, 1)) + ", CAST(CONVERT(" + text +
         " USING utf8mb4) AS BINARY), " + hex_literal(empty.substr(1)) + ")";
}

std::string held_only(const target_table& table, const std::vector<const column_def*>& key,
                      const write_sql_context& ctx) {
  if (!ctx.update_only) return {};
  // An update makes no row, a soft-deleted one included: it stays deleted.
  return " AND EXISTS (SELECT 1 FROM " + quote_table(table.schema, table.name) + " AS d WHERE " +
         key_match(key) +
         (ctx.soft_delete ? " AND d." + quote_identifier(meta::deleted) + " IS NOT TRUE"
                          : std::string()) +
         ")";
}

}  // namespace sluice::mdb::sql
