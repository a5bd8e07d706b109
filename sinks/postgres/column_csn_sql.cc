#include "sinks/postgres/column_csn_sql.h"

#include "sinks/postgres/sql_fragments.h"

namespace sluice {

using sql::cast;
using sql::jsonb_object;
using sql::older_than;
using sql::quote_literal;
using sql::stored_csn;
using sql::stored_map;
using sql::unnest;

std::string upsert_versioned_sql(const target_table& table,
                                 const std::vector<const column_def*>& key,
                                 const std::vector<const column_def*>& columns,
                                 const std::vector<const column_def*>& all_columns,
                                 const write_sql_context& ctx) {
  std::string names, values, updates, newer_any;
  std::vector<std::pair<std::string, std::string>> stamps;
  auto add = [](std::string& list, const std::string& item) {
    if (!list.empty()) list += ", ";
    list += item;
  };
  for (const column_def* c : key) {
    add(names, quote_identifier(c->name));
    add(values, cast(*c));
  }
  for (const column_def* c : columns) {
    const std::string in_csn =
        "decode(s._sluice_col_csn ->> " + quote_literal(c->name) + ", 'hex')";
    const std::string excluded_csn = "decode(EXCLUDED." + quote_identifier(meta::col_csn) +
                                     " ->> " + quote_literal(c->name) + ", 'hex')";
    const std::string newer = "(" + excluded_csn + " > " + stored_csn(*c) + ")";
    add(names, quote_identifier(c->name));
    // A column older than the key's tombstone was deleted after it was set: NULL.
    add(values, "CASE WHEN tb.csn IS NULL OR " + in_csn + " >= tb.csn THEN " + cast(*c) + " END");
    add(updates, quote_identifier(c->name) + " = CASE WHEN " + newer + " THEN EXCLUDED." +
                     quote_identifier(c->name) + " ELSE d." + quote_identifier(c->name) + " END");
    stamps.emplace_back(quote_literal(c->name), "CASE WHEN " + newer + " THEN EXCLUDED." +
                                                    quote_identifier(meta::col_csn) + " -> " +
                                                    quote_literal(c->name) + " END");
    newer_any += (newer_any.empty() ? "" : " OR ") + newer;
  }
  add(names, quote_identifier(meta::csn));
  add(values, "s._sluice_row_csn");
  add(updates, quote_identifier(meta::csn) + " = GREATEST(d." + quote_identifier(meta::csn) +
                   ", EXCLUDED." + quote_identifier(meta::csn) + ")");
  add(names, quote_identifier(meta::col_csn));
  add(values, "s._sluice_col_csn");
  add(updates, quote_identifier(meta::col_csn) + " = " + stored_map(all_columns) +
                   " || jsonb_strip_nulls(" + jsonb_object(stamps) + ")");
  add(names, quote_identifier(meta::updated_at));
  add(values, "now()");
  add(updates,
      quote_identifier(meta::updated_at) + " = EXCLUDED." + quote_identifier(meta::updated_at));
  if (newer_any.empty()) newer_any = older_than("EXCLUDED." + quote_identifier(meta::csn));
  std::string conflict;
  for (const column_def* c : key)
    add(conflict, quote_identifier(c->name));
  return "INSERT INTO " + qualified_name(table) + " AS d (" + names + ") SELECT " + values +
         " FROM " +
         unnest(3,
                {{"bytea[]", "_sluice_key"},
                 {"bytea[]", "_sluice_row_csn"},
                 {"jsonb[]", "_sluice_col_csn"}},
                key, columns) +
         // The key's or the table's tombstone, whichever is newer (bytea has no max()).
         " LEFT JOIN LATERAL (SELECT t.csn FROM " + ctx.tombstones +
         " t WHERE t.target_schema = $1 AND t.target_table = $2"
         " AND t.key IN (s._sluice_key, ''::bytea) ORDER BY t.csn DESC LIMIT 1) tb ON true"
         " WHERE tb.csn IS NULL OR tb.csn <= s._sluice_row_csn"
         " ON CONFLICT (" +
         conflict + ") DO UPDATE SET " + updates + " WHERE " + newer_any;
}

std::string clear_older_columns_sql(const target_table& table,
                                    const std::vector<const column_def*>& columns,
                                    const std::string& from, const std::string& match,
                                    const std::string& csn) {
  std::string sets, any;
  std::vector<std::pair<std::string, std::string>> stamps;
  for (const column_def* c : columns) {
    const std::string older = stored_csn(*c) + " < " + csn;
    sets += quote_identifier(c->name) + " = CASE WHEN " + older + " THEN NULL ELSE d." +
            quote_identifier(c->name) + " END, ";
    stamps.emplace_back(quote_literal(c->name),
                        "CASE WHEN " + older + " THEN encode(" + csn + ", 'hex') END");
    any += (any.empty() ? "" : " OR ") + older;
  }
  if (columns.empty()) any = "false";
  return "UPDATE " + qualified_name(table) + " AS d SET " + sets + quote_identifier(meta::col_csn) +
         " = " + stored_map(columns) + " || jsonb_strip_nulls(" + jsonb_object(stamps) + "), " +
         quote_identifier(meta::updated_at) + " = now()" + (from.empty() ? "" : " FROM " + from) +
         " WHERE " + (match.empty() ? "" : match + " AND ") + "d." + quote_identifier(meta::csn) +
         " >= " + csn + " AND (" + any + ") RETURNING 1";
}

}  // namespace sluice
