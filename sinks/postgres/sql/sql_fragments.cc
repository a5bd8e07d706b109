#include "sinks/postgres/sql/sql_fragments.h"

#include "core/model/row_key.h"

#include "sinks/postgres/sql/pg_identifier.h"
#include "sinks/postgres/sql/write_sql.h"

namespace sluice::sql {

std::string quote_literal(std::string_view text) {
  std::string out = "E'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out.push_back(c);
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

std::string param(size_t n) {
  return "$" + std::to_string(n);
}

std::string cast(const column_def& c) {
  return "CAST(s." + quote_identifier(c.name) + " AS " + c.type + ")";
}

std::string unnest(size_t first, const std::vector<std::pair<std::string, std::string>>& lead,
                   const std::vector<const column_def*>& a,
                   const std::vector<const column_def*>& b) {
  std::string args, aliases;
  size_t n = first;
  auto add = [&](const std::string& type, const std::string& alias) {
    if (!args.empty()) {
      args += ", ";
      aliases += ", ";
    }
    args += param(n++) + "::" + type;
    aliases += alias;
  };
  for (const auto& [type, alias] : lead)
    add(type, alias);
  for (const column_def* c : a)
    add("text[]", quote_identifier(c->name));
  for (const column_def* c : b)
    add("text[]", quote_identifier(c->name));
  return "unnest(" + args + ") AS s(" + aliases + ")";
}

namespace {

std::string hex_of(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
  return out;
}

// The probes of the key's tombstone (the bytea expression key) and, with a shard column, of
// the shard's, under the EXISTS that spares tables without tombstones; then the table's.
// alias: the relation that holds the key and the shard column.
std::string tombstone_probes(const write_sql_context& ctx, const std::string& key) {
  auto where = [](const char* alias) {
    return std::string(" WHERE ") + alias + ".target_schema = $1 AND " + alias +
           ".target_table = $2";
  };
  std::string probes =
      "(SELECT tk.csn FROM " + ctx.tombstones + " tk" + where("tk") + " AND tk.key = " + key + ")";
  if (!ctx.shard_column.empty()) {
    const std::string alias = key.substr(0, key.rfind('.') + 1);
    probes =
        "GREATEST(" + probes + ", (SELECT ts.csn FROM " + ctx.tombstones + " ts" + where("ts") +
        " AND ts.key = " + shard_key(alias + quote_identifier(ctx.shard_column) + "::text") + "))";
  }
  return "GREATEST(CASE WHEN EXISTS (SELECT 1 FROM " + ctx.tombstones + " te" + where("te") +
         ") THEN " + probes + " END, (SELECT tt.csn FROM " + ctx.tombstones + " tt" + where("tt") +
         " AND tt.key = ''::bytea))";
}

}  // namespace

std::string shard_key(const std::string& text) {
  // The canonical form of the empty text is the value's framing alone: its kind, then the
  // terminator. Taken from row_key itself, so that the two cannot drift apart.
  static const std::string empty = [] {
    row_key key{{"shard"}, {value::string("")}, {}};
    canonicalize_key(key, {column_class::text});
    return key.canonical;
  }();
  return "(decode('" + hex_of(empty.substr(0, 1)) + "', 'hex') || convert_to(" + text +
         ", 'UTF8') || decode('" + hex_of(empty.substr(1)) + "', 'hex'))";
}

std::string with_tombstone(const write_sql_context& ctx, const std::string& source) {
  return "(SELECT s.*, " + tombstone_probes(ctx, "s._sluice_key") + " AS _sluice_tomb FROM " +
         source + ") AS s";
}

std::string no_newer_tombstone(const write_sql_context& ctx, const std::string& key,
                               const std::string& csn) {
  // The empty bytea sorts first: no tombstone at all allows every CSN.
  return "coalesce(" + tombstone_probes(ctx, key) + ", ''::bytea) <= " + csn;
}

std::string key_match(const std::vector<const column_def*>& key) {
  std::string out;
  for (const column_def* c : key) {
    if (!out.empty()) out += " AND ";
    out += "d." + quote_identifier(c->name) + " = " + cast(*c);
  }
  return out;
}

std::string older_than(const std::string& csn) {
  const std::string col = "d." + quote_identifier(meta::csn);
  return "(" + col + " IS NULL OR " + col + " < " + csn + ")";
}

std::string tombstone_insert(const write_sql_context& ctx, const std::string& select) {
  return "INSERT INTO " + ctx.tombstones +
         " AS t (target_schema, target_table, key, key_json, csn, deleted_at) " + select +
         " ON CONFLICT (target_schema, target_table, key) DO UPDATE SET csn = EXCLUDED.csn, "
         "key_json = EXCLUDED.key_json, deleted_at = EXCLUDED.deleted_at "
         "WHERE t.csn < EXCLUDED.csn RETURNING 1";
}

std::string remove_rows(const target_table& table, const write_sql_context& ctx,
                        const std::string& using_clause, const std::string& where,
                        const std::string& csn) {
  if (ctx.soft_delete) {
    return "UPDATE " + qualified_name(table) + " AS d SET " + quote_identifier(meta::deleted) +
           " = true, " + quote_identifier(meta::csn) + " = " + csn + ", " +
           quote_identifier(meta::updated_at) + " = now()" +
           (using_clause.empty() ? "" : " FROM " + using_clause) + " WHERE " + where +
           " RETURNING 1";
  }
  return "DELETE FROM " + qualified_name(table) + " AS d" +
         (using_clause.empty() ? "" : " USING " + using_clause) + " WHERE " + where +
         " RETURNING 1";
}

// Missing from a row's map: never set, lowest. No map at all: the row's CSN.
std::string stored_csn(const column_def& c) {
  const std::string map = "d." + quote_identifier(meta::col_csn);
  return "(CASE WHEN " + map + " IS NULL THEN coalesce(d." + quote_identifier(meta::csn) +
         ", ''::bytea) ELSE coalesce(decode(" + map + " ->> " + quote_literal(c.name) +
         ", 'hex'), ''::bytea) END)";
}

std::string greater_value(const std::string& a, const std::string& b) {
  return "(ROW(" + a + " IS NOT NULL, " + a + "::text COLLATE \"C\") > ROW(" + b +
         " IS NOT NULL, " + b + "::text COLLATE \"C\"))";
}

std::string merge_upsert(const target_table& table, const std::vector<const column_def*>& key,
                         const std::vector<std::pair<std::string, std::string>>& rows,
                         const std::string& from_where, const std::string& updates,
                         const std::string& guard,
                         const std::vector<std::pair<std::string, std::string>>& helpers,
                         const std::string& insert_guard, bool update_only) {
  std::string select, names, values, on;
  for (const auto& [name, value] : rows) {
    select += (select.empty() ? "" : ", ") + value + " AS " + name;
    names += (names.empty() ? "" : ", ") + name;
    values += (values.empty() ? "" : ", ") + std::string("EXCLUDED.") + name;
  }
  for (const auto& [name, value] : helpers)
    select += ", " + value + " AS " + name;
  for (const column_def* c : key) {
    const std::string col = quote_identifier(c->name);
    on += (on.empty() ? "d." : " AND d.") + col + " = EXCLUDED." + col;
  }
  if (update_only) {
    // The rows the table holds are updated under the same guard; those it lacks are counted
    // (the NOT EXISTS reads the statement's snapshot, before the update), but for those a newer
    // tombstone refuses: a change of a deleted row is stale, not missing.
    return "WITH excluded AS (SELECT " + select + " " + from_where + "), updated AS (UPDATE " +
           qualified_name(table) + " AS d SET " + updates + " FROM excluded WHERE " + on +
           " AND (" + guard + ") RETURNING 1) SELECT (SELECT count(*) FROM updated), (SELECT " +
           "count(*) FROM excluded WHERE NOT EXISTS (SELECT 1 FROM " + qualified_name(table) +
           " AS d WHERE " + on + ")" +
           (insert_guard.empty() ? std::string() : " AND (" + insert_guard + ")") + ")";
  }
  return "MERGE INTO " + qualified_name(table) + " AS d USING (SELECT " + select + " " +
         from_where + ") AS excluded ON " + on + " WHEN MATCHED AND (" + guard +
         ") THEN UPDATE SET " + updates + " WHEN NOT MATCHED " +
         (insert_guard.empty() ? "" : "AND (" + insert_guard + ") ") + "THEN INSERT (" + names +
         ") VALUES (" + values + ")";
}

std::string jsonb_object(const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (pairs.empty()) return "'{}'::jsonb";
  std::string out;
  for (size_t i = 0; i < pairs.size(); i += 50) {
    if (i > 0) out += " || ";
    out += "jsonb_build_object(";
    for (size_t k = i; k < pairs.size() && k < i + 50; ++k) {
      if (k > i) out += ", ";
      out += pairs[k].first + ", " + pairs[k].second;
    }
    out += ")";
  }
  return out;
}

std::string stored_map(const std::vector<const column_def*>& all_columns) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const column_def* c : all_columns) {
    pairs.emplace_back(quote_literal(c->name),
                       "encode(coalesce(d." + quote_identifier(meta::csn) + ", ''::bytea), 'hex')");
  }
  return "(CASE WHEN d." + quote_identifier(meta::col_csn) + " IS NULL THEN " +
         jsonb_object(pairs) + " ELSE d." + quote_identifier(meta::col_csn) + " END)";
}

}  // namespace sluice::sql
