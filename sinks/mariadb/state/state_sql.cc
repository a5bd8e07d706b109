#include "sinks/mariadb/state/state_sql.h"

#include "sinks/mariadb/sql/upsert_alias.h"

namespace sluice::mdb {

std::string catalog_upsert_sql(const std::string& catalog, sql_dialect d) {
  const auto in = [&](std::string_view column) { return inserted(column, d); };
  // newer: the update is at least as new (by CSN where both have one); updated_at moves only
  // when it also differs from what is stored. Assignments run left to right and read the
  // stored row as each leaves it: updated_at first, csn (which the guard reads) last.
  const std::string newer =
      "(" + in("csn") + " IS NULL OR csn IS NULL OR " + in("csn") + " >= csn)";
  const std::string same = "(key_columns <=> " + in("key_columns") + " AND columns <=> " +
                           in("columns") + " AND learned_from <=> " + in("learned_from") +
                           " AND csn <=> " + in("csn") + ")";
  std::string update =
      "updated_at = IF(" + newer + " AND NOT " + same + ", UTC_TIMESTAMP(6), updated_at)";
  for (const char* column : {"key_columns", "columns", "learned_from", "csn"}) {
    update +=
        std::string(", ") + column + " = IF(" + newer + ", " + in(column) + ", " + column + ")";
  }
  return "INSERT INTO " + catalog +
         " (connector, source_database, source_schema, source_table, key_columns, "
         "columns, learned_from, csn, updated_at) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) + " ON DUPLICATE KEY UPDATE " + update;
}

std::string table_progress_upsert_sql(const std::string& table, sql_dialect d) {
  // GREATEST is NULL when either is: COALESCE keeps whichever is known.
  const std::string in = inserted("newest_source_ts", d);
  return "INSERT INTO " + table +
         " (connector, target_schema, target_table, newest_source_ts, applied_at) "
         "VALUES (?, ?, ?, TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED), "
         "'1970-01-01 00:00:00'), UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) +
         " ON DUPLICATE KEY UPDATE "
         "newest_source_ts = COALESCE(GREATEST(newest_source_ts, " +
         in + "), newest_source_ts, " + in + "), applied_at = UTC_TIMESTAMP(6)";
}

std::string member_beat_sql(const std::string& members, sql_dialect d) {
  return "INSERT INTO " + members +
         " (connector, worker_id, state, trace, topics, started_at, heartbeat_at) "
         "VALUES (?, ?, ?, NULLIF(?, ''), ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) +
         " ON DUPLICATE KEY UPDATE state = " + inserted("state", d) +
         ", trace = " + inserted("trace", d) + ", topics = " + inserted("topics", d) +
         ", heartbeat_at = UTC_TIMESTAMP(6)";
}

std::string control_target_sql(const std::string& control, sql_dialect d) {
  return "INSERT INTO " + control +
         " (connector, target_state, changed_by, changed_at) "
         "VALUES (?, ?, ?, UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) +
         " ON DUPLICATE KEY UPDATE "
         "target_state = " +
         inserted("target_state", d) + ", changed_by = " + inserted("changed_by", d) +
         ", changed_at = UTC_TIMESTAMP(6)";
}

std::string control_restart_sql(const std::string& control, sql_dialect d) {
  return "INSERT INTO " + control +
         " (connector, restart_epoch, restart_only_failed, changed_at) "
         "VALUES (?, 1, ?, UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) +
         " ON DUPLICATE KEY UPDATE "
         "restart_epoch = restart_epoch + 1, "
         "restart_only_failed = " +
         inserted("restart_only_failed", d) + ", changed_at = UTC_TIMESTAMP(6)";
}

std::string offset_set_sql(const std::string& table, sql_dialect d) {
  return "INSERT INTO " + table +
         " (connector, topic, `partition`, next_offset, owner_epoch, updated_at) "
         "VALUES (?, ?, ?, ?, 1, UTC_TIMESTAMP(6))" +
         std::string(inserted_row_alias(d)) +
         " ON DUPLICATE KEY UPDATE "
         "next_offset = " +
         inserted("next_offset", d) +
         ", owner_epoch = owner_epoch + 1, "
         "updated_at = UTC_TIMESTAMP(6)";
}

std::vector<std::string> delete_returning_sql(const std::string& table, std::string_view where,
                                              std::string_view columns, sql_dialect d) {
  const std::string w(where), c(columns);
  if (!d.mysql) return {"DELETE FROM " + table + " WHERE " + w + " RETURNING " + c};
  return {"SELECT " + c + " FROM " + table + " WHERE " + w + " FOR UPDATE",
          "DELETE FROM " + table + " WHERE " + w};
}

result delete_returning(connection& conn, const std::string& table, std::string_view where,
                        std::string_view columns, const std::vector<param>& params, sql_dialect d) {
  const std::vector<std::string> sql = delete_returning_sql(table, where, columns, d);
  result rows = conn.query(sql.front(), params);
  for (size_t i = 1; i < sql.size(); ++i)
    conn.exec(sql[i], params);
  return rows;
}

}  // namespace sluice::mdb
