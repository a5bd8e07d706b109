#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sinks/apply_options.h"
#include "sinks/apply_stats.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/table_shape.h"
#include "sinks/mariadb/sql/write_sql.h"
#include "sinks/mariadb/write/stager.h"
#include "sinks/mariadb/write/value_text.h"
#include "sinks/plan/table_plan.h"

namespace sluice::mdb {

// What an INSERT … SELECT … ON DUPLICATE KEY UPDATE did, from the server's "Records: R
// Duplicates: D" (mysql_info: R rows reached the table, D of them changed a row it held) and
// the rows it found there (sql::found_counter): inserted R - found, updated D.
struct upsert_counts {
  uint64_t inserted = 0;
  uint64_t updated = 0;
};
upsert_counts upsert_counts_of(const char* info, uint64_t found);

// Writes one table's part of a batch on MariaDB, set-based (SPEC §4 "Bulk path"; the model:
// postgres/write/table_writer.h, the same semantics): no per-row round trip, no value in the
// SQL text. Each statement's rows are staged in a session temporary table by one bulk INSERT
// (stager), then read by one statement that converts them strictly. For a range of a plan's
// items, in key order:
//   keyed:   the rows that carry a delete: one DELETE (soft: UPDATE) joined with the stage,
//            [two UPDATEs clearing the columns older than the delete, per-column tables], one
//            tombstone upsert; then per column group one guarded INSERT … SELECT … ON DUPLICATE
//            KEY UPDATE — guarded by the row's CSN, or column by column where the table keeps
//            per-column CSNs (_sluice_col_csn);
//            Keys the table does not hold yet, in a table without tombstones, are inserted
//            straight into it instead (write_new_rows: no stage, no guard);
//   keyless: one INSERT per column group, each source position once.
// Deletes go first: a row both deleted and re-inserted in the batch loses the columns set
// before the delete (SPEC §4: they read NULL), then takes its new image.
// Items the planner or the database rejected are skipped. Everything runs in the caller's
// transaction (the stage's DDL does not commit); an mdb_error (a bad value: 1292, 1366, 1406…)
// is the batch's, for the applier to isolate.
//
// insert.mode update (apply_options::update_only): the upserts write only the rows the table
// holds, under the same guards, and count the others as missing; deletes and truncates apply as
// in upsert mode. Shard tables (ByLogicalTableRouter, table_plan::shard_column): a shard's
// upserts are guarded by its shard's truncate tombstone too, and a truncate confined to one
// shard removes that shard's rows only.
//
// Threading: one per apply lane (connection); it reuses its buffers between statements.
class table_writer {
 public:
  table_writer(const apply_options& options, std::string tombstones_table,
               sql_dialect dialect = sql_dialect::mariadb());

  // Applies the plan's truncate (if it has one): removes rows below its CSN and records the
  // table's tombstone, or only counts it when truncate.enabled is off.
  void truncate(connection& conn, const table_plan& plan, const table_shape& shape,
                apply_stats& stats);
  // Writes items [begin, end) of the plan.
  void write(connection& conn, const table_plan& plan, const table_shape& shape, size_t begin,
             size_t end, apply_stats& stats);

  // Whether the batch may lock the plan's table exclusively instead of its keys: its rows are
  // many upserts (min_rows_alone or more, or apply_options::min_rows_alone; no delete,
  // truncate or keyless rows) into a table whose last upserts went straight in
  // (write_new_rows: no tombstone, no key there). Holding the table alone keeps every other
  // writer of its keys out as the key locks would, and saves MariaDB a key_locks row per new
  // key (a quarter of its CPU on an insert-only stream). Any path stays correct under it: the
  // guarded upsert only needs the keys' writers kept out. Writers of the table take turns.
  bool inserts_alone(const table_plan& plan) const;
  static constexpr size_t min_rows_alone = 1000;

  // The connection was lost: a new session has no temporary tables.
  void session_lost() { _stager.session_lost(); }
  // The server's dialect, once a connection told it (mdb_session's open hook).
  void set_dialect(sql_dialect dialect) { _ctx.dialect = dialect; }

 private:
  void truncate_shard(connection& conn, const table_plan& plan, const table_shape& shape,
                      const std::string& csn, apply_stats& stats);
  void write_deletes(connection& conn, const table_plan& plan, const table_shape& shape,
                     size_t begin, size_t end, apply_stats& stats);
  void write_upserts(connection& conn, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);
  // The fast path of write_upserts() for keys the table does not hold yet
  // (table_writer_new_rows.cc); false when it did not write them (the guarded upsert must).
  bool write_new_rows(connection& conn, const table_plan& plan,
                      const std::vector<const column_def*>& keys,
                      const std::vector<const column_def*>& cols, const write_sql_context& ctx,
                      const uint32_t* first, const uint32_t* last, apply_stats& stats);
  void write_appends(connection& conn, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);

  // Whether the table keeps per-column CSNs under hard deletes: the column-level statements.
  static bool versioned(const table_shape& shape, const write_sql_context& ctx);
  // The target schema and table, as a tombstone statement binds them.
  static std::vector<param> table_params(const table_plan& plan);
  // Runs a statement that counts the rows it finds (sql::found_counter) and returns its counts.
  upsert_counts run_counted(connection& conn, const std::string& sql,
                            const std::vector<param>& params);
  // Stages one value for a column of target t.
  void add_value(const value& v, value_target t);
  // The context for one table (its metadata columns).
  write_sql_context context_for(const table_shape& shape) const;
  std::vector<const column_def*> key_columns(const table_plan& plan, const table_shape& shape);
  // The shape's definitions of the group's columns; fills _position (plan column -> position).
  std::vector<const column_def*> group_columns(const table_plan& plan, const table_shape& shape,
                                               const column_group& group);
  // Every non-key column of the table but sluice's own.
  std::vector<const column_def*> data_columns(const table_plan& plan, const table_shape& shape);

  const apply_options& _options;
  write_sql_context _ctx;
  stager _stager;
  std::vector<value_target> _targets;  // per value column of the statement
  std::vector<int32_t> _position;      // plan column -> position in the group's columns
  std::vector<const value*> _values;   // the row's value per group column
  std::string _scratch;                // text made for one value
  // Per target: how its upserts went. skip: write_upserts() calls to skip the fast path for,
  // after it missed (a key was there) or the table had tombstones; straight: the last upserts
  // went straight in (what inserts_alone() goes by).
  struct new_rows_state {
    int skip = 0;
    bool straight = false;
  };
  std::map<target_table, new_rows_state> _new_rows;
  bool _counter_unsure = true;  // a counted statement failed: the counter holds its rows
};

}  // namespace sluice::mdb
