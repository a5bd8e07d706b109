#include "sinks/postgres/column_csn_sql.h"

#include "sinks/postgres/sql_fragments.h"

namespace sluice {

using sql::cast;
using sql::jsonb_object;
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
    // Newer, or at the same CSN a value where the row holds NULL: the column was cleared by a
    // delete at that CSN, and an upsert beats a delete at equal CSN (SPEC §2) — or another
    // image of that CSN held NULL, and the greater value is kept, as the merge keeps it. One
    // row comparison, so that each side is computed once.
    const std::string col = quote_identifier(c->name);
    const std::string newer = "(ROW(" + excluded_csn + ", EXCLUDED." + col +
                              " IS NOT NULL) > ROW(" + stored_csn(*c) + ", d." + col +
                              " IS NOT NULL))";
    add(names, quote_identifier(c->name));
    // A column older than the key's tombstone was deleted after it was set: NULL.
    add(values, "CASE WHEN s._sluice_tomb IS NULL OR " + in_csn + " >= s._sluice_tomb THEN " +
                    cast(*c) + " END");
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
         " FROM " + with_tombstone(ctx, source) +
         " WHERE s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn"
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
