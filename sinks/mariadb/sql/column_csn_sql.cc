#include "sinks/mariadb/sql/column_csn_sql.h"

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/sql/sql_fragments.h"

namespace sluice::mdb {

using sql::greater_value;
using sql::json_path;
using sql::quote_literal;

namespace {

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The stored row's columns, prefixed by the table's alias ("d.") or bare ("").
struct stored {
  std::string prefix;

  std::string col(const std::string& name) const { return prefix + quote_identifier(name); }
  std::string map() const { return col(meta::col_csn); }
  std::string csn() const { return col(meta::csn); }
  // The CSN bytes column c was last set at: missing from the map, never set (lowest); no map at
  // all, the row's.
  std::string csn_of(const column_def& c) const {
    return "IF(" + map() + " IS NULL, COALESCE(" + csn() + ", X''), COALESCE(UNHEX(JSON_VALUE(" +
           map() + ", " + json_path(c.name) + ")), X''))";
  }
  // The same as the map's text (lowercase hex).
  std::string hex_of(const column_def& c) const {
    return "CONVERT(IF(" + map() + " IS NULL, LOWER(HEX(" + csn() + ")), JSON_VALUE(" + map() +
           ", " + json_path(c.name) + ")) USING ascii)";
  }
  // The map made explicit for a row that has none: every column at the row's CSN.
  std::string base(const std::vector<const column_def*>& all) const {
    std::string pairs;
    for (const column_def* c : all)
      pairs += (pairs.empty() ? "" : ", ") + quote_literal(c->name) + ", LOWER(HEX(" + csn() + "))";
    return "IF(" + map() + " IS NULL, JSON_OBJECT(" + pairs + "), " + map() + ")";
  }
  // The map with each column c of cols set to IF(cond(c), stamp(c), its stored stamp).
  template <typename Cond, typename Stamp>
  std::string stamped(const std::vector<const column_def*>& all,
                      const std::vector<const column_def*>& cols, Cond cond, Stamp stamp) const {
    if (cols.empty()) return base(all);
    std::string out = "JSON_SET(" + base(all);
    for (size_t i = 0; i < cols.size(); ++i) {
      out += ", " + json_path(cols[i]->name) + ", IF(" + cond(i) + ", " + stamp(i) + ", " +
             hex_of(*cols[i]) + ")";
    }
    return out + ")";
  }
};

// Hex texts are compared and stored as ASCII: the stage's, the map's and the connection's
// collations would not mix.
std::string in_hex(const column_def& c) {
  return "CONVERT(JSON_VALUE(s._sluice_in_map, " + json_path(c.name) + ") USING ascii)";
}

std::string in_csn(const column_def& c) {
  return "UNHEX(" + in_hex(c) + ")";
}

std::string flag(size_t i) {
  return "@sluice_n" + std::to_string(i);
}

}  // namespace

std::string upsert_versioned_sql(const target_table& table, const stage_def& stage,
                                 const std::vector<const column_def*>& key,
                                 const std::vector<const column_def*>& columns,
                                 const std::vector<const column_def*>& all_columns,
                                 const write_sql_context& ctx) {
  const stored d{""};
  std::vector<std::string> names, values, updates;
  for (size_t i = 0; i < key.size(); ++i) {
    names.push_back(quote_identifier(key[i]->name));
    values.push_back("s." + key_alias(i));
  }
  std::string any;
  for (size_t i = 0; i < columns.size(); ++i) {
    const column_def& c = *columns[i];
    const std::string col = quote_identifier(c.name);
    // A column older than the key's tombstone was deleted after it was set: NULL.
    const std::string value = "IF(s._sluice_tomb IS NULL OR " + in_csn(c) +
                              " >= s._sluice_tomb, s." + value_alias(i) + ", NULL)";
    names.push_back(col);
    values.push_back(value);
    const std::string in = !ctx.dialect.mysql ? "VALUES(" + col + ")" : value;
    const std::string newer = "COALESCE(" + in_csn(c) + " > " + d.csn_of(c) + " OR (" + in_csn(c) +
                              " = " + d.csn_of(c) + " AND " + greater_value(in, col) + "), FALSE)";
    std::string expr = "IF(" + flag(i) + " := " + newer + ", " + in + ", " + col + ")";
    if (i == 0) expr = sql::counting(col, expr);
    updates.push_back(col + " = " + expr);
    any += (any.empty() ? "" : " OR ") + flag(i);
  }
  if (any.empty()) any = sql::older_than(d.csn(), "s._sluice_row_csn");
  names.push_back(quote_identifier(meta::col_csn));
  values.push_back("s._sluice_in_map");
  if (ctx.updated_at) {
    const std::string u = quote_identifier(meta::updated_at);
    names.push_back(u);
    values.push_back("UTC_TIMESTAMP(6)");
    updates.push_back(u + " = IF(" + any + ", UTC_TIMESTAMP(6), " + u + ")");
  }
  updates.push_back(d.map() + " = " +
                    d.stamped(
                        all_columns, columns, [](size_t i) { return flag(i); },
                        [&](size_t i) { return in_hex(*columns[i]); }));
  names.push_back(d.csn());
  values.push_back("s._sluice_row_csn");
  std::string csn_expr = "IF(" + any + ", GREATEST(COALESCE(" + d.csn() +
                         ", X''), s._sluice_row_csn), " + d.csn() + ")";
  if (columns.empty()) csn_expr = sql::counting(d.csn(), csn_expr);  // else the first column's
  updates.push_back(d.csn() + " = " + csn_expr);
  return "INSERT INTO " + quote_table(table.schema, table.name) + " (" + list(names) + ") SELECT " +
         list(values) + " FROM " + sql::with_tombstone(ctx, stage.table) +
         " WHERE (s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn)" +
         sql::held_only(table, key, ctx) + " ON DUPLICATE KEY UPDATE " + list(updates);
}

namespace {

// The rows a clearing touches: they outlive the delete at csn and hold a column older.
std::string clear_where(const stored& d, const std::vector<const column_def*>& columns,
                        const std::string& csn) {
  std::string any;
  for (const column_def* c : columns)
    any += (any.empty() ? "" : " OR ") + d.csn_of(*c) + " < " + csn;
  if (any.empty()) any = "FALSE";
  return " WHERE " + d.csn() + " >= " + csn + " AND (" + any + ")";
}

std::string cleared(const stored& d, const column_def& c, const std::string& csn) {
  return d.col(c.name) + " = IF(" + d.csn_of(c) + " < " + csn + ", NULL, " + d.col(c.name) + ")";
}

}  // namespace

std::string clear_columns_sql(const target_table& table, const stage_def& stage,
                              const std::vector<const column_def*>& key,
                              const std::vector<const column_def*>& columns,
                              const write_sql_context& ctx) {
  const stored d{"d."};
  const std::string csn = "s._sluice_row_csn";
  std::vector<std::string> sets;
  for (const column_def* c : columns)
    sets.push_back(cleared(d, *c, csn));
  if (ctx.updated_at) sets.push_back(d.col(meta::updated_at) + " = UTC_TIMESTAMP(6)");
  if (sets.empty()) sets.push_back(d.csn() + " = " + d.csn());
  return "UPDATE " + quote_table(table.schema, table.name) + " AS d JOIN " +
         quote_identifier(stage.table) + " AS s ON " + sql::key_match(key) + " SET " + list(sets) +
         clear_where(d, columns, csn);
}

std::string clear_stamps_sql(const target_table& table, const stage_def& stage,
                             const std::vector<const column_def*>& key,
                             const std::vector<const column_def*>& columns) {
  const stored d{"d."};
  const std::string csn = "s._sluice_row_csn";
  return "UPDATE " + quote_table(table.schema, table.name) + " AS d JOIN " +
         quote_identifier(stage.table) + " AS s ON " + sql::key_match(key) + " SET " + d.map() +
         " = " +
         d.stamped(
             columns, columns, [&](size_t i) { return d.csn_of(*columns[i]) + " < " + csn; },
             [&](size_t) { return "CONVERT(LOWER(HEX(" + csn + ")) USING ascii)"; }) +
         clear_where(d, columns, csn);
}

std::string truncate_clear_sql(const target_table& table,
                               const std::vector<const column_def*>& columns,
                               const std::string& csn, const write_sql_context& ctx,
                               const std::string& shard_column) {
  const stored d{""};
  std::vector<std::string> sets;
  for (const column_def* c : columns)
    sets.push_back(cleared(d, *c, csn));
  // After the columns: their test reads the stamps this replaces.
  sets.push_back(d.map() + " = " +
                 d.stamped(
                     columns, columns,
                     [&](size_t i) { return d.csn_of(*columns[i]) + " < " + csn; },
                     [&](size_t) { return "CONVERT(LOWER(HEX(" + csn + ")) USING ascii)"; }));
  if (ctx.updated_at) sets.push_back(d.col(meta::updated_at) + " = UTC_TIMESTAMP(6)");
  return "UPDATE " + quote_table(table.schema, table.name) + " SET " + list(sets) +
         clear_where(d, columns, csn) +
         (shard_column.empty() ? std::string() : " AND " + d.col(shard_column) + " = ?");
}

}  // namespace sluice::mdb
