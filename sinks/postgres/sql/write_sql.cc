#include "sinks/postgres/sql/write_sql.h"

#include <algorithm>

#include "sinks/postgres/sql/column_csn_sql.h"
#include "sinks/postgres/sql/pg_identifier.h"
#include "sinks/postgres/sql/sql_fragments.h"

namespace sluice {

using sql::cast;
using sql::greater_value;
using sql::key_match;
using sql::merge_upsert;
using sql::no_newer_tombstone;
using sql::older_than;
using sql::remove_rows;
using sql::tombstone_insert;

namespace {

// The position columns, quoted, in position_columns()' order.
std::string position_list() {
  std::string out;
  for (const std::string& c : position_columns())
    out += (out.empty() ? "" : ", ") + quote_identifier(c);
  return out;
}

}  // namespace

const lead_columns& upsert_lead() {
  static const lead_columns lead = {{"bytea", "_sluice_key"}, {"bytea", "_sluice_row_csn"}};
  return lead;
}

const lead_columns& upsert_versioned_lead() {
  static const lead_columns lead = {
      {"bytea", "_sluice_key"}, {"bytea", "_sluice_row_csn"}, {"jsonb", "_sluice_col_csn"}};
  return lead;
}

const lead_columns& delete_lead() {
  static const lead_columns lead = {
      {"bytea", "_sluice_key"}, {"bytea", "_sluice_row_csn"}, {"text", "_sluice_key_json"}};
  return lead;
}

const lead_columns& append_lead() {
  static const lead_columns lead = {{"text", "_sluice_op"},          {"bytea", "_sluice_row_csn"},
                                    {"bigint", "_sluice_source_us"}, {"text", "_sluice_tx"},
                                    {"text", "_sluice_topic"},       {"int4", "_sluice_partition"},
                                    {"bigint", "_sluice_offset"},    {"int4", "_sluice_index"}};
  return lead;
}

std::string unnest_source(size_t first_param, const lead_columns& lead,
                          const std::vector<const column_def*>& a,
                          const std::vector<const column_def*>& b) {
  std::vector<std::pair<std::string, std::string>> arrays;
  for (const lead_column& l : lead)
    arrays.emplace_back(std::string(l.type) + "[]", l.alias);
  return sql::unnest(first_param, arrays, a, b);
}

std::string upsert_sql(const target_table& table, const std::vector<const column_def*>& key,
                       const std::vector<const column_def*>& columns, const write_sql_context& ctx,
                       std::string source) {
  if (source.empty()) source = unnest_source(3, upsert_lead(), key, columns);
  std::vector<std::pair<std::string, std::string>> rows;
  std::string updates;
  auto set = [&](const std::string& name, const std::string& value) {
    if (!updates.empty()) updates += ", ";
    updates += name + " = " + value;
  };
  for (const column_def* c : key)
    rows.emplace_back(quote_identifier(c->name), cast(*c));
  const std::string csn = quote_identifier(meta::csn);
  const std::string tie = "d." + csn + " = EXCLUDED." + csn;
  // At equal CSN (another image of the key at that CSN, met in another batch) each column
  // keeps the greater value, as the merge does within a batch; a soft-deleted row takes the
  // whole image (an upsert beats a delete at equal CSN, SPEC §2).
  const std::string keep_stored =
      tie + (ctx.soft_delete ? " AND NOT d." + quote_identifier(meta::deleted) : "");
  std::string any_greater;
  for (const column_def* c : columns) {
    const std::string col = quote_identifier(c->name);
    const std::string greater = greater_value("EXCLUDED." + col, "d." + col);
    rows.emplace_back(col, cast(*c));
    set(col, "CASE WHEN " + keep_stored + " AND NOT coalesce(" + greater + ", false) THEN d." +
                 col + " ELSE EXCLUDED." + col + " END");
    any_greater += (any_greater.empty() ? "" : " OR ") + greater;
  }
  rows.emplace_back(csn, "s._sluice_row_csn");
  set(csn, "EXCLUDED." + csn);
  rows.emplace_back(quote_identifier(meta::updated_at), "now()");
  set(quote_identifier(meta::updated_at), "EXCLUDED." + quote_identifier(meta::updated_at));
  std::string guard = older_than("EXCLUDED." + csn);
  if (!any_greater.empty()) guard += " OR (" + tie + " AND (" + any_greater + "))";
  if (ctx.soft_delete) {
    rows.emplace_back(quote_identifier(meta::deleted), "false");
    set(quote_identifier(meta::deleted), "false");
    guard += " OR (" + tie + " AND d." + quote_identifier(meta::deleted) + ")";
    // An update makes no row, a soft-deleted one included: it stays deleted.
    if (ctx.update_only) guard = "(" + guard + ") AND NOT d." + quote_identifier(meta::deleted);
  }
  // Tombstones are probed for the rows whose key the table does not hold only: a stored row
  // is never older than a tombstone of its key (a delete removes every older row, a truncate
  // every row older than it, and an upsert older than a tombstone is never written), so for a
  // matched row the CSN guard decides alone.
  return merge_upsert(
      table, key, rows, "FROM " + source, updates, guard, {{"_sluice_key", "s._sluice_key"}},
      no_newer_tombstone(ctx, "EXCLUDED._sluice_key", "EXCLUDED." + csn), ctx.update_only);
}

std::string delete_sql(const target_table& table, const std::vector<const column_def*>& key,
                       bool table_exists, const write_sql_context& ctx,
                       const std::vector<const column_def*>* versioned, std::string source) {
  if (source.empty()) source = unnest_source(3, delete_lead(), key);
  // Whether each key already has a tombstone: a primary-key probe per row, made once. A
  // scalar subquery, not EXISTS: the planner may turn a correlated EXISTS into a hashed
  // subplan that reads every tombstone of the table on each batch (it did, with 30,000
  // tombstones, at 40 ms a batch), and a scalar subquery is never hashed.
  std::string out = "WITH s AS (SELECT *, (SELECT true FROM " + ctx.tombstones +
                    " t WHERE t.target_schema = $1 AND t.target_table = $2 AND t.key = "
                    "s._sluice_key) IS NOT NULL AS _sluice_tombstoned FROM " +
                    source + ")";
  if (table_exists) {
    out += ", deleted AS (" +
           remove_rows(table, ctx, "s", key_match(key) + " AND " + older_than("s._sluice_row_csn"),
                       "s._sluice_row_csn") +
           ")";
    if (versioned) {
      out += ", cleared AS (" +
             clear_older_columns_sql(table, *versioned, "s", key_match(key), "s._sluice_row_csn") +
             ")";
    }
  }
  // The tombstones: added where the key has none, by a plain INSERT — INSERT … ON CONFLICT's
  // speculative insertion costs three times as much — and raised where it has an older one.
  // Both read the statement's snapshot, so no key is in both, and no other transaction writes
  // the key's tombstone meanwhile: it would need the key's lock.
  const std::string rows =
      "SELECT $1, $2, s._sluice_key, CAST(s._sluice_key_json AS jsonb), s._sluice_row_csn, "
      "now() FROM s WHERE ";
  out += ", added AS (INSERT INTO " + ctx.tombstones +
         " (target_schema, target_table, key, key_json, csn, deleted_at) " + rows +
         "NOT s._sluice_tombstoned RETURNING 1), raised AS (" +
         tombstone_insert(ctx, rows + "s._sluice_tombstoned") + ") SELECT " +
         (table_exists ? "(SELECT count(*) FROM deleted)" : "0::bigint") +
         ", (SELECT count(*) FROM added) + (SELECT count(*) FROM raised)";
  return out;
}

std::string truncate_sql(const target_table& table, bool table_exists, bool keyless,
                         const write_sql_context& ctx,
                         const std::vector<const column_def*>* versioned) {
  std::string out = "WITH ";
  if (table_exists) {
    // A soft delete keeps keyless rows: they are a log, marking them deleted means nothing.
    write_sql_context hard = ctx;
    hard.soft_delete = ctx.soft_delete && !keyless;
    out +=
        "deleted AS (" + remove_rows(table, hard, "", older_than("$3::bytea"), "$3::bytea") + "), ";
    if (versioned && !keyless) {
      out +=
          "cleared AS (" + clear_older_columns_sql(table, *versioned, "", "", "$3::bytea") + "), ";
    }
  }
  out += "tombstoned AS (" +
         tombstone_insert(ctx, "SELECT $1, $2, ''::bytea, NULL::jsonb, $3::bytea, now()") +
         ") SELECT " + (table_exists ? "(SELECT count(*) FROM deleted)" : "0::bigint") +
         ", (SELECT count(*) FROM tombstoned)";
  return out;
}

std::string shard_truncate_sql(const target_table& table, const std::string& shard_column,
                               bool table_exists, const write_sql_context& ctx,
                               const std::vector<const column_def*>* versioned) {
  const std::string in_shard = "d." + quote_identifier(shard_column) + " = $4";
  std::string out = "WITH ";
  if (table_exists) {
    out += "deleted AS (" +
           remove_rows(table, ctx, "", in_shard + " AND " + older_than("$3::bytea"), "$3::bytea") +
           "), ";
    if (versioned) {
      out += "cleared AS (" +
             clear_older_columns_sql(table, *versioned, "", in_shard, "$3::bytea") + "), ";
    }
  }
  // $4 is read as the column's type where it is compared, and as text here, where it is not.
  out += "tombstoned AS (" +
         tombstone_insert(ctx,
                          "SELECT $1, $2, $5::bytea, CAST($6::text AS jsonb), $3::bytea, now() "
                          "WHERE $4::text IS NOT NULL") +
         ") SELECT " + (table_exists ? "(SELECT count(*) FROM deleted)" : "0::bigint") +
         ", (SELECT count(*) FROM tombstoned)";
  return out;
}

std::string append_sql(const target_table& table, const std::vector<const column_def*>& columns,
                       std::string source, append_once once) {
  if (source.empty()) source = unnest_source(1, append_lead(), columns);
  std::string names, values;
  for (const column_def* c : columns) {
    names += quote_identifier(c->name) + ", ";
    values += cast(*c) + ", ";
  }
  names += quote_identifier(meta::op) + ", " + quote_identifier(meta::csn) + ", " +
           quote_identifier(meta::source_ts) + ", " + quote_identifier(meta::tx) + ", " +
           quote_identifier(meta::kafka_topic) + ", " + quote_identifier(meta::kafka_partition) +
           ", " + quote_identifier(meta::kafka_offset) + ", " + quote_identifier(meta::kafka_index);
  values +=
      "s._sluice_op, s._sluice_row_csn, "
      "'epoch'::timestamptz + s._sluice_source_us * interval '1 microsecond', "
      "s._sluice_tx, s._sluice_topic, s._sluice_partition, s._sluice_offset, s._sluice_index";
  return "INSERT INTO " + qualified_name(table) + " (" + names + ") SELECT " + values + " FROM " +
         source +
         (once == append_once::position ? " ON CONFLICT (" + position_list() + ") DO NOTHING"
          : once == append_once::any    ? std::string(" ON CONFLICT DO NOTHING")
                                        : std::string());
}

std::vector<std::string> position_columns() {
  std::vector<std::string> out = {meta::kafka_index, meta::kafka_offset, meta::kafka_partition,
                                  meta::kafka_topic};
  std::sort(out.begin(), out.end());
  return out;
}

std::string position_index_sql(const target_table& table) {
  return "CREATE UNIQUE INDEX ON " + qualified_name(table) + " (" + position_list() + ")";
}

}  // namespace sluice
