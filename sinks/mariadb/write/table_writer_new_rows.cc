#include "sinks/mariadb/write/table_writer.h"

namespace sluice::mdb {

// Rows whose keys the table does not hold yet (an insert-only stream, a backfill) need none of
// the upsert's guards: there is no stored row to compare CSNs with, and no tombstone when the
// table has none at all. They are inserted straight into the table by one array-bound INSERT
// (no stage, no INSERT … SELECT, no tombstone probe per row) under a savepoint; the strict
// sql_mode still makes a bad value the batch's error, as on the guarded path. "No tombstone"
// holds until COMMIT: the key locks keep every other writer of these keys out (a delete that
// would write one of their tombstones included), and a truncate's tombstone takes the table's
// lock exclusively. A key the table does hold fails that INSERT (1062), and the rows go the
// guarded way after all; the table is then not tried for a while, so that an update-heavy
// stream does not pay for a failed INSERT on every batch. A batch that holds the table's lock
// exclusively (inserts_alone) took no key locks: the table's lock keeps those writers out. The
// PostgreSQL target's direct COPY is the model (postgres/write/table_writer.cc).
bool table_writer::write_new_rows(connection& conn, const table_plan& plan,
                                  const std::vector<const column_def*>& keys,
                                  const std::vector<const column_def*>& cols,
                                  const write_sql_context& ctx, const uint32_t* first,
                                  const uint32_t* last, apply_stats& stats) {
  constexpr int skip_after_miss = 16;
  int& skip = _new_rows[plan.target].skip;
  if (skip > 0) {
    --skip;
    return false;
  }
  const result any = conn.query(any_tombstone_sql(ctx), table_params(plan));
  if (!any.empty() && any.at(0, 0).value_or("0") != "0") {
    skip = skip_after_miss;
    return false;
  }
  _targets.clear();
  for (const column_def* c : keys)
    _targets.push_back(target_of(c->type));
  for (const column_def* c : cols)
    _targets.push_back(target_of(c->type));
  _stager.begin(keys.size() + cols.size() + 1);
  size_t count = 0;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const merged_row& row = plan.row(i);
    ++count;
    for (size_t k = 0; k < keys.size(); ++k)
      add_value(row.key.values[k], _targets[k]);
    _values.assign(cols.size(), nullptr);
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot >= 0)
        _values[static_cast<size_t>(_position[static_cast<size_t>(slot)])] = &row.columns[k].v;
    }
    for (size_t k = 0; k < cols.size(); ++k) {
      if (_values[k])
        add_value(*_values[k], _targets[keys.size() + k]);
      else
        _stager.add_null();
    }
    _stager.add(param::bytes(row.upsert_seq.bytes()));
    _stager.end_row();
  }
  if (count == 0) return false;

  conn.exec("SAVEPOINT sluice_new_rows");
  try {
    _stager.send(conn, insert_new_rows_sql(plan.target, keys, cols, ctx));
  } catch (const mdb_error& e) {
    if (e.code() != 1062) throw;  // anything else is the batch's error, as on the guarded path
    conn.exec("ROLLBACK TO SAVEPOINT sluice_new_rows");
    skip = skip_after_miss;
    return false;
  }
  conn.exec("RELEASE SAVEPOINT sluice_new_rows");
  stats.upserted += count;
  return true;
}

bool table_writer::inserts_alone(const table_plan& plan) const {
  if (plan.keyless || plan.truncate) return false;
  const auto it = _new_rows.find(plan.target);
  if (it == _new_rows.end() || !it->second.straight || it->second.skip > 0) return false;
  size_t rows = 0;
  for (size_t i = 0; i < plan.item_count(); ++i) {
    if (plan.rejected[i]) continue;
    if (!plan.row(i).delete_seq.empty()) return false;
    ++rows;
  }
  return rows >= (_options.min_rows_alone ? _options.min_rows_alone : min_rows_alone);
}

}  // namespace sluice::mdb
