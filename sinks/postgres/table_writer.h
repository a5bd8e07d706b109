#pragma once

#include <string>
#include <vector>

#include <pqxx/transaction_base>

#include "sinks/postgres/apply_options.h"
#include "sinks/postgres/apply_stats.h"
#include "sinks/postgres/pg_array.h"
#include "sinks/postgres/table_plan.h"
#include "sinks/postgres/table_shape.h"
#include "sinks/postgres/write_sql.h"

namespace sluice {

// Writes one table's part of a batch, set-based (SPEC §4 "Bulk path"): per statement, each
// column's values travel as one array parameter that unnest() spreads into rows — no per-row
// round trip, no value in the SQL text. For a range of a plan's items it runs
//   keyed:   one DELETE (+ tombstones) for the rows that carry a delete, then one guarded
//            INSERT … ON CONFLICT … DO UPDATE … WHERE per column group (usually one) —
//            guarded by the row's CSN, or column by column where the table keeps per-column
//            CSNs (_sluice_col_csn, from its first partial image on);
//   keyless: one INSERT per column group.
// Deletes go first: a row both deleted and re-inserted in the batch loses the columns that
// were set before the delete (SPEC §4: they read NULL), then takes its new image.
// Items the planner or the database rejected are skipped.
//
// Threading: one per apply lane; it reuses its array buffers between statements.
class table_writer {
 public:
  table_writer(const apply_options& options, std::string tombstones_table);

  // Applies the plan's truncate (if it has one): removes rows below its CSN and records a
  // table tombstone, or only counts it when truncate.enabled is off.
  void truncate(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                apply_stats& stats);
  // Writes items [begin, end) of the plan.
  void write(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
             size_t begin, size_t end, apply_stats& stats);

 private:
  void write_deletes(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     size_t begin, size_t end, apply_stats& stats);
  void write_upserts(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);
  void write_appends(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);
  // The shape's definitions of the group's columns, and a column -> array position map.
  std::vector<const column_def*> group_columns(const table_plan& plan, const table_shape& shape,
                                               const column_group& group);
  std::vector<const column_def*> key_columns(const table_plan& plan, const table_shape& shape);
  // Every non-key column of the table but sluice's own.
  std::vector<const column_def*> data_columns(const table_plan& plan, const table_shape& shape);
  pg_array& array(size_t i);
  void reset(size_t n);  // clears the first n arrays

  const apply_options& _options;
  write_sql_context _ctx;
  std::vector<pg_array> _arrays;
  std::vector<int32_t> _position;  // plan column -> position in the group's arrays
  std::vector<std::string> _params;
};

}  // namespace sluice
