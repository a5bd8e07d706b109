// table_writer's truncates: the whole table's, and one shard's (ByLogicalTableRouter) — apart
// from the writes of rows (table_writer.cc).
#include "sinks/mariadb/write/table_writer.h"

#include <string>
#include <vector>

#include "sinks/mariadb/sql/column_csn_sql.h"
#include "sinks/mariadb/sql/sql_fragments.h"
#include "sinks/plan/json_text.h"

namespace sluice::mdb {

void table_writer::truncate(connection& conn, const table_plan& plan, const table_shape& shape,
                            apply_stats& stats) {
  if (!plan.truncate || plan.rows->truncate_seq.empty()) return;
  if (!_options.truncate_enabled) {
    ++stats.truncates_ignored;
    return;
  }
  const write_sql_context ctx = context_for(shape);
  // The CSN is sluice's own bytes, never a source value: a hexadecimal literal.
  const std::string csn = sql::hex_literal(plan.rows->truncate_seq.bytes());
  if (!plan.truncate_column.empty()) {
    truncate_shard(conn, plan, shape, csn, stats);
    return;
  }
  if (shape.exists) {
    stats.deleted += conn.exec(truncate_rows_sql(plan.target, csn, plan.keyless, ctx));
    if (!plan.keyless && versioned(shape, ctx)) {
      const std::vector<const column_def*> all = data_columns(plan, shape);
      conn.exec(truncate_clear_sql(plan.target, all, csn, ctx));
    }
  }
  const upsert_counts counts = run_counted(conn, table_tombstone_sql(csn, ctx), table_params(plan));
  stats.tombstones += counts.inserted + counts.updated;
  ++stats.truncates_applied;
}

// One shard's truncate (ByLogicalTableRouter): its rows only, and its own tombstone, keyed by
// the shard (sql::shard_key), which guards that shard's later upserts and no other's. A table
// without the column holds no row of any shard. The tombstone goes through a remove stage, as a
// delete's does: one statement, whatever the dialect.
void table_writer::truncate_shard(connection& conn, const table_plan& plan,
                                  const table_shape& shape, const std::string& csn,
                                  apply_stats& stats) {
  const write_sql_context ctx = context_for(shape);
  const row_key& scope = plan.rows->truncate_scope;
  const std::vector<param> shard{param::text(scope.values.front().text)};
  if (shape.exists && shape.find(plan.truncate_column) != nullptr) {
    stats.deleted +=
        conn.exec(truncate_rows_sql(plan.target, csn, false, ctx, plan.truncate_column), shard);
    if (versioned(shape, ctx)) {
      const std::vector<const column_def*> all = data_columns(plan, shape);
      conn.exec(truncate_clear_sql(plan.target, all, csn, ctx, plan.truncate_column), shard);
    }
  }
  const stage_def stage = make_stage(stage_kind::remove, {}, false, {});
  _stager.begin(stage.columns.size());
  _stager.add(param::bytes(scope.canonical));
  _stager.add(param::bytes(plan.rows->truncate_seq.bytes()));
  _stager.add_copy(key_json({plan.truncate_column}, scope.values));
  _stager.end_row();
  _stager.fill(conn, stage, _ctx.dialect);
  const upsert_counts counts = run_counted(conn, tombstones_sql(stage, ctx), table_params(plan));
  stats.tombstones += counts.inserted + counts.updated;
  ++stats.truncates_applied;
}

}  // namespace sluice::mdb
