#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/transaction_base>

#include "sinks/apply_options.h"
#include "sinks/apply_stats.h"
#include "sinks/plan/table_plan.h"
#include "sinks/postgres/sql/pg_array.h"
#include "sinks/postgres/sql/table_shape.h"
#include "sinks/postgres/sql/write_sql.h"
#include "sinks/postgres/write/copy_stager.h"
#include "sinks/postgres/write/value_target.h"

namespace sluice {

// Writes one table's part of a batch, set-based (SPEC §4 "Bulk path"): no per-row round trip,
// no value in the SQL text. Each statement's rows are staged by COPY in a session temporary
// table (copy_stager, the default) or sent as one array parameter per column for unnest()
// (apply_options::bulk_path), and read by one statement. For a range of a plan's items:
//   keyed:   one DELETE (+ tombstones) for the rows that carry a delete, then one guarded
//            upsert (a MERGE: sql::merge_upsert) per column group (usually one) — guarded by
//            the row's CSN, or column by column where the table keeps per-column CSNs
//            (_sluice_col_csn, from its first partial image on);
//   keyless: one INSERT per column group.
// Deletes go first: a row both deleted and re-inserted in the batch loses the columns that
// were set before the delete (SPEC §4: they read NULL), then takes its new image.
// Items the planner or the database rejected are skipped.
//
// Threading: one per apply lane (connection); it reuses its buffers between statements.
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

  // The life of the transaction and session the writes go to (copy_stager.h).
  void transaction_begun() { _stager.transaction_begun(); }
  void transaction_committed() { _stager.transaction_committed(); }
  void savepoint_rolled_back() { _stager.savepoint_rolled_back(); }
  void session_lost() { _stager.session_lost(); }

 private:
  // One field of the row being built: NULL, text, bytes (bytea) or an integer.
  struct field {
    enum class kind : uint8_t { null, text, bytea, integer } what = kind::null;
    std::string_view text;
    int64_t number = 0;
  };

  void write_deletes(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     size_t begin, size_t end, apply_stats& stats);
  void write_upserts(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);
  // The fast path of write_upserts() for keys the table does not hold yet; false when it
  // did not write them (the guarded upsert must).
  bool write_new_rows(pqxx::transaction_base& tx, const table_plan& plan,
                      const std::vector<const column_def*>& keys,
                      const std::vector<const column_def*>& cols, const uint32_t* first,
                      const uint32_t* last, apply_stats& stats);
  void add_direct(const value* v, value_target target);
  void write_appends(pqxx::transaction_base& tx, const table_plan& plan, const table_shape& shape,
                     const column_group& group, size_t begin, size_t end, apply_stats& stats);

  // A statement's rows: start(), then per row set fields of _row and end_row(), then
  // source() for the statement's FROM item. params_from: the first array parameter's number
  // on the unnest() path (the parameters before it are the caller's, in _params).
  // The fields after the lead are the columns of a, then of b.
  void start(const lead_columns& lead, const std::vector<const column_def*>& a,
             const std::vector<const column_def*>& b = {});
  void set_value(size_t i, const value& v);
  void end_row();
  std::string source(pqxx::transaction_base& tx, const lead_columns& lead,
                     const std::vector<const column_def*>& a,
                     const std::vector<const column_def*>& b, size_t params_from);

  // The shape's definitions of the group's columns, and a column -> array position map.
  std::vector<const column_def*> group_columns(const table_plan& plan, const table_shape& shape,
                                               const column_group& group);
  std::vector<const column_def*> key_columns(const table_plan& plan, const table_shape& shape);
  // Every non-key column of the table but sluice's own.
  std::vector<const column_def*> data_columns(const table_plan& plan, const table_shape& shape);

  const apply_options& _options;
  write_sql_context _ctx;
  copy_stager _stager;
  copy_stager _direct;  // write_new_rows(): COPY straight into the target
  // Per target: write_upserts() calls to skip the fast path for, after it missed (a key was
  // there) or the table had tombstones.
  std::map<target_table, int> _direct_skip;
  std::vector<const value*> _values;          // write_new_rows(): the row's value per group column
  std::vector<value_target> _direct_targets;  // write_new_rows(): per key, then group column
  std::string _json;                          // write_new_rows(): text made for a value
  std::vector<pg_array> _arrays;              // the unnest() path: one array per column
  std::vector<field> _row;                    // the row being built
  std::vector<std::string> _texts;            // per field: text made for it (JSON, the CSN map)
  std::vector<value_target> _targets;         // per field: what its column asks of values
  std::vector<int32_t> _position;             // plan column -> position in the group's columns
  std::vector<std::string> _params;           // the statement's parameters
};

}  // namespace sluice
