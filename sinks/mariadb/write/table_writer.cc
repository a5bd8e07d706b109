#include "sinks/mariadb/write/table_writer.h"

#include <mysql.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/model/json_text.h"
#include "sinks/mariadb/sql/column_csn_sql.h"
#include "sinks/mariadb/sql/sql_fragments.h"
#include "sinks/plan/json_text.h"

namespace sluice::mdb {
namespace {

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
}

// Items of [begin, end) in a sorted item list.
std::pair<const uint32_t*, const uint32_t*> range_of(const std::vector<uint32_t>& items,
                                                     size_t begin, size_t end) {
  const uint32_t* first = std::lower_bound(items.data(), items.data() + items.size(), begin);
  const uint32_t* last = std::lower_bound(first, items.data() + items.size(), end);
  return {first, last};
}

bool any_accepted(const table_plan& plan, const uint32_t* first, const uint32_t* last) {
  for (const uint32_t* it = first; it != last; ++it) {
    if (!plan.rejected[*it]) return true;
  }
  return false;
}

// A statement reading sql::with_tombstone: the target once per tombstone probe.
std::vector<param> tombstone_probe_params(const table_plan& plan, const write_sql_context& ctx) {
  std::vector<param> out;
  for (size_t i = 0; i < sql::tombstone_params(ctx); i += 2) {
    out.push_back(param::text(plan.target.schema));
    out.push_back(param::text(plan.target.name));
  }
  return out;
}

// The shard column's place in the plan's key (write_sql_context::shard_key), -1: none.
int shard_key_of(const table_plan& plan) {
  if (plan.shard_column.empty()) return -1;
  const auto it = std::find(plan.key_columns.begin(), plan.key_columns.end(), plan.shard_column);
  return it == plan.key_columns.end() ? -1 : static_cast<int>(it - plan.key_columns.begin());
}

}  // namespace

upsert_counts upsert_counts_of(const char* info, uint64_t found) {
  unsigned long long records = 0, duplicates = 0;
  if (info == nullptr ||
      std::sscanf(info, "Records: %llu Duplicates: %llu", &records, &duplicates) != 2) {
    throw std::logic_error(std::string("MariaDB reported no records for an INSERT … SELECT: ") +
                           (info ? info : "(none)"));
  }
  upsert_counts out;
  out.inserted = records - std::min<unsigned long long>(records, found);
  out.updated = duplicates;
  return out;
}

table_writer::table_writer(const apply_options& options, std::string tombstones_table,
                           sql_dialect dialect)
    : _options(options) {
  _ctx.tombstones = std::move(tombstones_table);
  _ctx.soft_delete = options.deletes == apply_delete_mode::soft;
  _ctx.update_only = options.update_only;
  _ctx.dialect = dialect;
}

bool table_writer::versioned(const table_shape& shape, const write_sql_context& ctx) {
  return !ctx.soft_delete && shape.find(meta::col_csn) != nullptr;
}

std::vector<param> table_writer::table_params(const table_plan& plan) {
  return {param::text(plan.target.schema), param::text(plan.target.name)};
}

write_sql_context table_writer::context_for(const table_shape& shape) const {
  write_sql_context ctx = _ctx;
  ctx.updated_at = shape.find(meta::updated_at) != nullptr;
  return ctx;
}

upsert_counts table_writer::run_counted(connection& conn, const std::string& sql,
                                        const std::vector<param>& params) {
  if (_counter_unsure) {
    conn.exec(std::string("SET ") + sql::found_counter + " = 0");
    _counter_unsure = false;
  }
  _counter_unsure = true;
  conn.exec(sql, params);
  // mysql_info() belongs to the statement just run: read before the next one.
  const char* raw = mysql_info(conn.handle());
  const std::string info = raw ? raw : "";
  const result found = conn.query(found_rows_sql());
  _counter_unsure = false;
  const uint64_t n = found.empty() ? 0 : std::stoull(found.at(0, 0).value_or("0"));
  return upsert_counts_of(raw ? info.c_str() : nullptr, n);
}

void table_writer::add_value(const value& v, value_target t) {
  const rendered_value r = render_value(v, t, _scratch);
  switch (r.what) {
    case rendered_value::form::null:
      _stager.add_null();
      break;
    case rendered_value::form::text:
      // Text made for the value lives in _scratch until the next value: copied.
      if (!_scratch.empty() && r.text.data() == _scratch.data())
        _stager.add_copy(r.text);
      else
        _stager.add(param::text(r.text));
      break;
    case rendered_value::form::bytes:
      _stager.add(param::bytes(r.text));
      break;
  }
}

std::vector<const column_def*> table_writer::key_columns(const table_plan& plan,
                                                         const table_shape& shape) {
  std::vector<const column_def*> out;
  for (const std::string& name : plan.key_columns) {
    const column_def* c = shape.find(name);
    if (!c) throw std::logic_error("key column " + name + " missing from " + plan.target.name);
    out.push_back(c);
  }
  return out;
}

std::vector<const column_def*> table_writer::data_columns(const table_plan& plan,
                                                          const table_shape& shape) {
  std::vector<const column_def*> out;
  const auto& pk = shape.primary_key.empty() ? plan.key_columns : shape.primary_key;
  for (const column_def& c : shape.columns) {
    if (c.name.rfind("_sluice_", 0) == 0) continue;
    if (std::find(pk.begin(), pk.end(), c.name) != pk.end()) continue;
    out.push_back(&c);
  }
  return out;
}

std::vector<const column_def*> table_writer::group_columns(const table_plan& plan,
                                                           const table_shape& shape,
                                                           const column_group& group) {
  std::vector<const column_def*> out;
  _position.assign(plan.columns.size(), -1);
  for (uint32_t c : group.columns) {
    const column_def* def = shape.find(plan.columns[c].name);
    if (!def) {
      throw std::logic_error("column " + plan.columns[c].name + " missing from " +
                             plan.target.name + " after auto-create/evolve");
    }
    _position[c] = static_cast<int32_t>(out.size());
    out.push_back(def);
  }
  return out;
}

void table_writer::write(connection& conn, const table_plan& plan, const table_shape& shape,
                         size_t begin, size_t end, apply_stats& stats) {
  // The upserts below guard a shard's rows by its truncate tombstone too.
  _ctx.shard_key = shard_key_of(plan);
  if (plan.keyless) {
    for (const column_group& g : plan.groups)
      write_appends(conn, plan, shape, g, begin, end, stats);
    return;
  }
  write_deletes(conn, plan, shape, begin, end, stats);
  for (const column_group& g : plan.groups)
    write_upserts(conn, plan, shape, g, begin, end, stats);
}

void table_writer::write_deletes(connection& conn, const table_plan& plan, const table_shape& shape,
                                 size_t begin, size_t end, apply_stats& stats) {
  size_t count = 0;
  for (size_t i = begin; i < end; ++i) {
    if (!plan.rejected[i] && !plan.row(i).delete_seq.empty()) ++count;
  }
  if (count == 0) return;
  if (!_options.delete_enabled) {
    stats.deletes_ignored += count;
    return;
  }
  const size_t nkeys = plan.key_columns.size();
  // Where the table does not exist yet only tombstones are written: the key columns are
  // staged as text.
  std::vector<column_def> untyped(nkeys);
  std::vector<const column_def*> keys(nkeys);
  for (size_t k = 0; k < nkeys; ++k) {
    const column_def* c = shape.exists ? shape.find(plan.key_columns[k]) : nullptr;
    untyped[k] = {plan.key_columns[k], "text", "", true};
    keys[k] = c ? c : &untyped[k];
  }
  const stage_def stage = make_stage(stage_kind::remove, keys, shape.exists, {});
  _targets.clear();
  for (const column_def* c : keys)
    _targets.push_back(target_of(c->type));
  _stager.begin(stage.columns.size());
  for (size_t i = begin; i < end; ++i) {
    const merged_row& row = plan.row(i);
    if (plan.rejected[i] || row.delete_seq.empty()) continue;
    _stager.add(param::bytes(row.key.canonical));
    _stager.add(param::bytes(row.delete_seq.bytes()));
    _stager.add_copy(key_json(plan.key_columns, row.key.values));
    for (size_t k = 0; k < nkeys; ++k)
      add_value(row.key.values[k], _targets[k]);
    _stager.end_row();
  }
  _stager.fill(conn, stage, _ctx.dialect);
  const write_sql_context ctx = context_for(shape);
  if (shape.exists) {
    stats.deleted += conn.exec(delete_rows_sql(plan.target, stage, keys, ctx));
    if (versioned(shape, ctx)) {
      const std::vector<const column_def*> all = data_columns(plan, shape);
      conn.exec(clear_columns_sql(plan.target, stage, keys, all, ctx));
      conn.exec(clear_stamps_sql(plan.target, stage, keys, all));
    }
  }
  const upsert_counts counts = run_counted(conn, tombstones_sql(stage, ctx), table_params(plan));
  stats.tombstones += counts.inserted + counts.updated;
}

void table_writer::write_upserts(connection& conn, const table_plan& plan, const table_shape& shape,
                                 const column_group& group, size_t begin, size_t end,
                                 apply_stats& stats) {
  const auto [first, last] = range_of(group.items, begin, end);
  if (!any_accepted(plan, first, last)) return;
  const std::vector<const column_def*> keys = key_columns(plan, shape);
  const std::vector<const column_def*> cols = group_columns(plan, shape, group);
  const write_sql_context ctx = context_for(shape);
  const bool per_column = versioned(shape, ctx);
  // (Update mode inserts nothing: no new rows to insert.)
  bool& straight = _new_rows[plan.target].straight;
  straight = !per_column && !ctx.update_only &&
             write_new_rows(conn, plan, keys, cols, ctx, first, last, stats);
  if (straight) return;
  const stage_def stage =
      make_stage(per_column ? stage_kind::versioned : stage_kind::upsert, keys, true, cols);
  _targets.clear();
  for (const column_def* c : keys)
    _targets.push_back(target_of(c->type));
  for (const column_def* c : cols)
    _targets.push_back(target_of(c->type));
  _stager.begin(stage.columns.size());
  size_t count = 0;
  std::string map;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const merged_row& row = plan.row(i);
    ++count;
    _stager.add(param::bytes(row.key.canonical));
    _stager.add(param::bytes(row.upsert_seq.bytes()));
    _values.assign(cols.size(), nullptr);
    if (per_column) map.assign(1, '{');
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      const auto pos = static_cast<size_t>(_position[static_cast<size_t>(slot)]);
      _values[pos] = &row.columns[k].v;
      if (per_column) {
        if (map.size() > 1) map.push_back(',');
        append_json_string(map, cols[pos]->name);
        map.append(":\"");
        append_hex(map, row.columns[k].seq.bytes());
        map.push_back('"');
      }
    }
    if (per_column) {
      map.push_back('}');
      _stager.add_copy(map);
    }
    for (size_t k = 0; k < keys.size(); ++k)
      add_value(row.key.values[k], _targets[k]);
    for (size_t k = 0; k < cols.size(); ++k) {
      if (_values[k])
        add_value(*_values[k], _targets[keys.size() + k]);
      else
        _stager.add_null();
    }
    _stager.end_row();
  }
  if (count == 0) return;
  _stager.fill(conn, stage, _ctx.dialect);
  const std::string sql = per_column ? upsert_versioned_sql(plan.target, stage, keys, cols,
                                                            data_columns(plan, shape), ctx)
                                     : upsert_sql(plan.target, stage, keys, cols, ctx);
  const std::vector<param> params = tombstone_probe_params(plan, ctx);
  size_t missing = 0;
  if (ctx.update_only) {
    // Rows the table lacks are counted, not made (the PostgreSQL target's insert.mode update).
    const result r = conn.query(missing_rows_sql(plan.target, stage, keys, ctx), params);
    missing = r.empty() ? 0 : std::stoull(r.at(0, 0).value_or("0"));
  }
  const upsert_counts counts = run_counted(conn, sql, params);
  const size_t written = static_cast<size_t>(counts.inserted + counts.updated);
  stats.upserted += written;
  stats.missing += missing;
  stats.stale += count - std::min(count, written + missing);
}

void table_writer::write_appends(connection& conn, const table_plan& plan, const table_shape& shape,
                                 const column_group& group, size_t begin, size_t end,
                                 apply_stats& stats) {
  const auto [first, last] = range_of(group.items, begin, end);
  if (!any_accepted(plan, first, last)) return;
  const std::vector<const column_def*> cols = group_columns(plan, shape, group);
  const stage_def stage = make_stage(stage_kind::append, {}, false, cols);
  _targets.clear();
  for (const column_def* c : cols)
    _targets.push_back(target_of(c->type));
  _stager.begin(stage.columns.size());
  size_t count = 0;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const change& c = plan.keyless_change(i);
    ++count;
    _stager.add(param::text(to_string(c.op)));
    _stager.add(param::bytes(c.seq.bytes()));
    const int64_t ts = c.source.source_ts.value();
    if (ts > 0) {
      _scratch.clear();
      append_utc_micros(_scratch, ts / 1000);
      _stager.add_copy(_scratch);
    } else {
      _stager.add_null();
    }
    if (c.source.tx.empty())
      _stager.add_null();
    else
      _stager.add(param::text(c.source.tx));
    if (c.source.origin.topic.empty()) {
      for (int k = 0; k < 4; ++k)
        _stager.add_null();
    } else {
      _stager.add(param::text(c.source.origin.topic));
      _stager.add_copy(std::to_string(c.source.origin.partition.value()));
      _stager.add_copy(std::to_string(c.source.origin.offset.value()));
      // No index, no position: NULL is distinct from every other, the row always appended.
      if (c.source.origin.index != message_origin::no_index)
        _stager.add_copy(std::to_string(c.source.origin.index));
      else
        _stager.add_null();
    }
    _values.assign(cols.size(), nullptr);
    for (size_t k = 0; k < c.after.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      _values[static_cast<size_t>(_position[static_cast<size_t>(slot)])] = &c.after[k].v;
    }
    for (size_t k = 0; k < cols.size(); ++k) {
      if (_values[k])
        add_value(*_values[k], _targets[k]);
      else
        _stager.add_null();
    }
    _stager.end_row();
  }
  if (count == 0) return;
  _stager.fill(conn, stage, _ctx.dialect);
  const append_once once = _options.append_skips_any_conflict ? append_once::any
                           : shape.position_index             ? append_once::position
                                                              : append_once::none;
  const upsert_counts counts =
      run_counted(conn, append_sql(plan.target, stage, cols, once, context_for(shape)), {});
  stats.appended += static_cast<size_t>(counts.inserted);
}

}  // namespace sluice::mdb
