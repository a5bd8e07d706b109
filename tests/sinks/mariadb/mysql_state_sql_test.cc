#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/plan/table_shape_reader.h"
#include "sinks/mariadb/sql/upsert_alias.h"
#include "sinks/mariadb/state/state_sql.h"

namespace sluice {
namespace {

using mdb::sql_dialect;

// MySQL 8's text of the state stores and the shape reader (never run here: Debian 12 ships no
// MySQL), next to MariaDB's, which must stay byte for byte what the real-server tests run.

TEST_CASE("mariadb dialect: the inserted row, VALUES(col) or MySQL's row alias, and FOR SHARE") {
  CHECK(mdb::inserted("`partition`", sql_dialect::mariadb()) == "VALUES(`partition`)");
  CHECK(mdb::inserted("`partition`", sql_dialect::mysql8()) == "new.`partition`");
  CHECK(mdb::inserted_row_alias(sql_dialect::mariadb()).empty());
  CHECK(mdb::inserted_row_alias(sql_dialect::mysql8()) == " AS new");
  CHECK(mdb::shared_lock(sql_dialect::mariadb()) == "LOCK IN SHARE MODE");
  CHECK(mdb::shared_lock(sql_dialect::mysql8()) == "FOR SHARE");
  CHECK(mdb::shared_lock(sql_dialect::of_server(80036)) == "FOR SHARE");
}

TEST_CASE("mariadb state sql: the upserts, MariaDB's text unchanged, MySQL's with the row alias") {
  const std::string t = "`s`.`catalog`";
  const std::string newer = "(VALUES(csn) IS NULL OR csn IS NULL OR VALUES(csn) >= csn)";
  std::string update =
      "updated_at = IF(" + newer +
      " AND NOT (key_columns <=> VALUES(key_columns) AND columns <=> VALUES(columns) AND "
      "learned_from <=> VALUES(learned_from) AND csn <=> VALUES(csn)), UTC_TIMESTAMP(6), "
      "updated_at)";
  for (const char* c : {"key_columns", "columns", "learned_from", "csn"})
    update += std::string(", ") + c + " = IF(" + newer + ", VALUES(" + c + "), " + c + ")";
  const std::string head =
      "INSERT INTO `s`.`catalog` (connector, source_database, source_schema, source_table, "
      "key_columns, columns, learned_from, csn, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
      "UTC_TIMESTAMP(6))";
  CHECK(mdb::catalog_upsert_sql(t, sql_dialect::mariadb()) ==
        head + " ON DUPLICATE KEY UPDATE " + update);
  const std::string mysql = mdb::catalog_upsert_sql(t, sql_dialect::mysql8());
  CHECK(mysql.starts_with(head + " AS new ON DUPLICATE KEY UPDATE updated_at = IF((new.csn IS "
                                 "NULL OR csn IS NULL OR new.csn >= csn) AND NOT (key_columns "
                                 "<=> new.key_columns AND "));
  CHECK(
      mysql.ends_with(", csn = IF((new.csn IS NULL OR csn IS NULL OR new.csn >= csn), "
                      "new.csn, csn)"));
  CHECK(mysql.find("VALUES(") == std::string::npos);

  CHECK(mdb::table_progress_upsert_sql("`s`.`p`", sql_dialect::mariadb()) ==
        "INSERT INTO `s`.`p` (connector, target_schema, target_table, newest_source_ts, "
        "applied_at) VALUES (?, ?, ?, TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED), "
        "'1970-01-01 00:00:00'), UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE newest_source_ts = "
        "COALESCE(GREATEST(newest_source_ts, VALUES(newest_source_ts)), newest_source_ts, "
        "VALUES(newest_source_ts)), applied_at = UTC_TIMESTAMP(6)");
  CHECK(mdb::table_progress_upsert_sql("`s`.`p`", sql_dialect::mysql8()) ==
        "INSERT INTO `s`.`p` (connector, target_schema, target_table, newest_source_ts, "
        "applied_at) VALUES (?, ?, ?, TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED), "
        "'1970-01-01 00:00:00'), UTC_TIMESTAMP(6)) AS new ON DUPLICATE KEY UPDATE "
        "newest_source_ts = COALESCE(GREATEST(newest_source_ts, new.newest_source_ts), "
        "newest_source_ts, new.newest_source_ts), applied_at = UTC_TIMESTAMP(6)");

  CHECK(mdb::member_beat_sql("`s`.`members`", sql_dialect::mariadb()) ==
        "INSERT INTO `s`.`members` (connector, worker_id, state, trace, topics, started_at, "
        "heartbeat_at) VALUES (?, ?, ?, NULLIF(?, ''), ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)) "
        "ON DUPLICATE KEY UPDATE state = VALUES(state), trace = VALUES(trace), "
        "topics = VALUES(topics), heartbeat_at = UTC_TIMESTAMP(6)");
  CHECK(mdb::member_beat_sql("`s`.`members`", sql_dialect::mysql8()) ==
        "INSERT INTO `s`.`members` (connector, worker_id, state, trace, topics, started_at, "
        "heartbeat_at) VALUES (?, ?, ?, NULLIF(?, ''), ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)) "
        "AS new ON DUPLICATE KEY UPDATE state = new.state, trace = new.trace, "
        "topics = new.topics, heartbeat_at = UTC_TIMESTAMP(6)");

  CHECK(mdb::control_target_sql("`s`.`c`", sql_dialect::mariadb()) ==
        "INSERT INTO `s`.`c` (connector, target_state, changed_by, changed_at) VALUES (?, ?, ?, "
        "UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE target_state = VALUES(target_state), "
        "changed_by = VALUES(changed_by), changed_at = UTC_TIMESTAMP(6)");
  CHECK(mdb::control_target_sql("`s`.`c`", sql_dialect::mysql8()) ==
        "INSERT INTO `s`.`c` (connector, target_state, changed_by, changed_at) VALUES (?, ?, ?, "
        "UTC_TIMESTAMP(6)) AS new ON DUPLICATE KEY UPDATE target_state = new.target_state, "
        "changed_by = new.changed_by, changed_at = UTC_TIMESTAMP(6)");

  CHECK(mdb::control_restart_sql("`s`.`c`", sql_dialect::mariadb()) ==
        "INSERT INTO `s`.`c` (connector, restart_epoch, restart_only_failed, changed_at) VALUES "
        "(?, 1, ?, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE restart_epoch = restart_epoch + 1, "
        "restart_only_failed = VALUES(restart_only_failed), changed_at = UTC_TIMESTAMP(6)");
  CHECK(mdb::control_restart_sql("`s`.`c`", sql_dialect::mysql8()) ==
        "INSERT INTO `s`.`c` (connector, restart_epoch, restart_only_failed, changed_at) VALUES "
        "(?, 1, ?, UTC_TIMESTAMP(6)) AS new ON DUPLICATE KEY UPDATE restart_epoch = "
        "restart_epoch + 1, restart_only_failed = new.restart_only_failed, changed_at = "
        "UTC_TIMESTAMP(6)");

  CHECK(mdb::offset_set_sql("`s`.`offsets`", sql_dialect::mariadb()) ==
        "INSERT INTO `s`.`offsets` (connector, topic, `partition`, next_offset, owner_epoch, "
        "updated_at) VALUES (?, ?, ?, ?, 1, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE "
        "next_offset = VALUES(next_offset), owner_epoch = owner_epoch + 1, "
        "updated_at = UTC_TIMESTAMP(6)");
  CHECK(mdb::offset_set_sql("`s`.`offsets`", sql_dialect::mysql8()) ==
        "INSERT INTO `s`.`offsets` (connector, topic, `partition`, next_offset, owner_epoch, "
        "updated_at) VALUES (?, ?, ?, ?, 1, UTC_TIMESTAMP(6)) AS new ON DUPLICATE KEY UPDATE "
        "next_offset = new.next_offset, owner_epoch = owner_epoch + 1, "
        "updated_at = UTC_TIMESTAMP(6)");
}

TEST_CASE("mariadb state sql: DELETE … RETURNING, on MySQL a locking read and then the delete") {
  const std::string where = "connector = ? AND chunk_id IN (?, ?) AND piece >= -1";
  CHECK(mdb::delete_returning_sql("`s`.`f`", where, "chunk_id, piece", sql_dialect::mariadb()) ==
        std::vector<std::string>{"DELETE FROM `s`.`f` WHERE connector = ? AND chunk_id IN (?, ?) "
                                 "AND piece >= -1 RETURNING chunk_id, piece"});
  CHECK(mdb::delete_returning_sql("`s`.`f`", where, "chunk_id, piece", sql_dialect::mysql8()) ==
        std::vector<std::string>{"SELECT chunk_id, piece FROM `s`.`f` WHERE connector = ? AND "
                                 "chunk_id IN (?, ?) AND piece >= -1 FOR UPDATE",
                                 "DELETE FROM `s`.`f` WHERE connector = ? AND chunk_id IN (?, ?) "
                                 "AND piece >= -1"});
}

TEST_CASE("mariadb table shapes: MySQL 8 reads no json checks and names the columns") {
  const std::vector<target_table> tables = {{"db", "Orders"}, {"db", "lines"}};
  const mdb::shape_queries maria = mdb::table_shape_queries(tables, sql_dialect::mariadb());
  REQUIRE(maria.checks.has_value());
  CHECK(maria.checks->sql ==
        "SELECT constraint_schema, table_name, constraint_name, check_clause FROM "
        "information_schema.check_constraints WHERE level = 'Column' AND constraint_schema = ? "
        "AND table_name IN (?, ?)");
  CHECK(maria.columns.sql ==
        "SELECT c.table_schema, c.table_name, c.column_name, c.column_type, c.collation_name, "
        "c.is_nullable FROM information_schema.columns c JOIN information_schema.tables b ON "
        "b.table_schema = c.table_schema AND b.table_name = c.table_name AND b.table_type = "
        "'BASE TABLE' WHERE c.table_schema = ? AND c.table_name IN (?, ?) ORDER BY "
        "c.table_schema, c.table_name, c.ordinal_position");
  CHECK(maria.indexes.sql ==
        "SELECT table_schema, table_name, index_name, column_name, sub_part FROM "
        "information_schema.statistics WHERE non_unique = 0 AND table_schema = ? AND "
        "table_name IN (?, ?) ORDER BY table_schema, table_name, index_name, seq_in_index");
  REQUIRE(maria.columns.params.size() == 3);
  CHECK(maria.columns.params[2].data == "lines");

  const mdb::shape_queries mysql = mdb::table_shape_queries(tables, sql_dialect::mysql8());
  CHECK_FALSE(mysql.checks.has_value());
  CHECK(mysql.columns.sql ==
        "SELECT c.table_schema AS table_schema, c.table_name AS table_name, c.column_name AS "
        "column_name, c.column_type AS column_type, c.collation_name AS collation_name, "
        "c.is_nullable AS is_nullable FROM information_schema.columns c JOIN "
        "information_schema.tables b ON b.table_schema = c.table_schema AND b.table_name = "
        "c.table_name AND b.table_type = 'BASE TABLE' WHERE c.table_schema = ? AND "
        "c.table_name IN (?, ?) ORDER BY c.table_schema, c.table_name, c.ordinal_position");
  CHECK(mysql.indexes.sql ==
        "SELECT table_schema AS table_schema, table_name AS table_name, index_name AS "
        "index_name, column_name AS column_name, sub_part AS sub_part FROM "
        "information_schema.statistics WHERE non_unique = 0 AND table_schema = ? AND "
        "table_name IN (?, ?) ORDER BY table_schema, table_name, index_name, seq_in_index");
  CHECK(mysql.indexes.params.size() == 3);
}

}  // namespace
}  // namespace sluice
