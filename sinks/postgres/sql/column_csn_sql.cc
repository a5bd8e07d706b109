#include "sinks/postgres/sql/column_csn_sql.h"

#include "sinks/postgres/sql/pg_identifier.h"
#include "sinks/postgres/sql/sql_fragments.h"

namespace sluice {

using sql::cast;
using sql::jsonb_object;
using sql::merge_upsert;
using sql::older_than;
using sql::quote_literal;
using sql::stored_csn;
using sql::stored_map;
using sql::with_tombstone;

std::string upsert_versioned_sql(const target_table& table,
                                 const std::vector<const column_def*>& key,
                                 const std::vector<const column_def*>& columns,
                                 const std::vector<const column_def*>& all_columns,
                                 const write_sql_context& ctx, std::string source) {
  if (source.empty()) source = unnest_source(3, upsert_versioned_lead(), key, columns);
  std::string updates, newer_any;
  std::vector<std::pair<std::string, std::string>> rows, stamps, helpers;
  auto add = [](std::string& list, const std::string& item) {
    if (!list.empty()) list += ", ";
    list += item;
  };
  for (const column_def* c : key)
    rows.emplace_back(quote_identifier(c->name), cast(*c));
  for (const column_def* c : columns) {
    const std::string in_csn =
        "decode(s._sluice_col_csn ->> " + quote_literal(c->name) + ", 'hex')";
    // The incoming column CSN, decoded once per row in the source: the guard, the SET list
    // and the stamps read it up to three times.
    const std::string helper = "_sluice_in_" + std::to_string(helpers.size());
    helpers.emplace_back(helper, in_csn);
    const std::string excluded_csn = "EXCLUDED." + helper;
    // Newer, or at the same CSN a value where the row holds NULL: the column was cleared by a
    // delete at that CSN, and an upsert beats a delete at equal CSN (SPEC §2) — or another
    // image of that CSN held NULL or a smaller value, and the greater value is kept, as the
    // merge keeps it (sql::greater_value). One row comparison, evaluated left to right until
    // one side wins, so that the texts are only made at equal CSN.
    const std::string col = quote_identifier(c->name);
    const std::string newer = "(ROW(" + excluded_csn + ", EXCLUDED." + col +
                              " IS NOT NULL, EXCLUDED." + col + "::text COLLATE \"C\") > ROW(" +
                              stored_csn(*c) + ", d." + col + " IS NOT NULL, d." + col +
                              "::text COLLATE \"C\"))";
    // A column older than the key's tombstone was deleted after it was set: NULL.
    rows.emplace_back(quote_identifier(c->name), "CASE WHEN s._sluice_tomb IS NULL OR " + in_csn +
                                                     " >= s._sluice_tomb THEN " + cast(*c) +
                                                     " END");
    add(updates, quote_identifier(c->name) + " = CASE WHEN " + newer + " THEN EXCLUDED." +
                     quote_identifier(c->name) + " ELSE d." + quote_identifier(c->name) + " END");
    stamps.emplace_back(quote_literal(c->name), "CASE WHEN " + newer + " THEN EXCLUDED." +
                                                    quote_identifier(meta::col_csn) + " -> " +
                                                    quote_literal(c->name) + " END");
    newer_any += (newer_any.empty() ? "" : " OR ") + newer;
  }
  rows.emplace_back(quote_identifier(meta::csn), "s._sluice_row_csn");
  add(updates, quote_identifier(meta::csn) + " = GREATEST(d." + quote_identifier(meta::csn) +
                   ", EXCLUDED." + quote_identifier(meta::csn) + ")");
  rows.emplace_back(quote_identifier(meta::col_csn), "s._sluice_col_csn");
  add(updates, quote_identifier(meta::col_csn) + " = " + stored_map(all_columns) +
                   " || jsonb_strip_nulls(" + jsonb_object(stamps) + ")");
  rows.emplace_back(quote_identifier(meta::updated_at), "now()");
  add(updates,
      quote_identifier(meta::updated_at) + " = EXCLUDED." + quote_identifier(meta::updated_at));
  if (newer_any.empty()) newer_any = older_than("EXCLUDED." + quote_identifier(meta::csn));
  return merge_upsert(table, key, rows,
                      "FROM " + with_tombstone(ctx, source) +
                          " WHERE s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn",
                      updates, newer_any, helpers, {}, ctx.update_only);
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
