#include "sinks/postgres/table_writer.h"

#include <algorithm>
#include <stdexcept>

#include <pqxx/prepared_statement>
#include <pqxx/result>

#include "sinks/postgres/column_csn_sql.h"
#include "sinks/postgres/json_text.h"

namespace sluice {
namespace {

bool is_json_type(const std::string& type) {
  return type == "jsonb" || type == "json";
}

// A value as the text its column's type reads: JSON columns take JSON tokens (a string
// becomes "text", quoted); every other type takes the value's own text.
void add_value(pg_array& arr, const value& v, const column_def& col, std::string& scratch) {
  if (v.is_null() || v.is_absent()) {
    arr.add_null();
  } else if (is_json_type(col.type)) {
    scratch.clear();
    append_json_value(scratch, v);
    arr.add(scratch);
  } else {
    arr.add(v.text);
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

bool versioned(const table_shape& shape, const write_sql_context& ctx) {
  return !ctx.soft_delete && shape.find(meta::col_csn) != nullptr;
}

}  // namespace

table_writer::table_writer(const apply_options& options, std::string tombstones_table)
    : _options(options),
      _ctx{std::move(tombstones_table), options.deletes == apply_delete_mode::soft} {}

pg_array& table_writer::array(size_t i) {
  if (_arrays.size() <= i) _arrays.resize(i + 1);
  return _arrays[i];
}

void table_writer::reset(size_t n) {
  for (size_t i = 0; i < n; ++i)
    array(i).clear();
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
  for (const column_def& c : shape.columns) {
    if (c.name.rfind("_sluice_", 0) == 0) continue;
    // The table's key (a truncate-only plan has no key columns of its own).
    const auto& pk = shape.primary_key.empty() ? plan.key_columns : shape.primary_key;
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

void table_writer::truncate(pqxx::transaction_base& tx, const table_plan& plan,
                            const table_shape& shape, apply_stats& stats) {
  if (!plan.truncate || plan.rows->truncate_seq.empty()) return;
  if (!_options.truncate_enabled) {
    ++stats.truncates_ignored;
    return;
  }
  const std::vector<const column_def*> all = data_columns(plan, shape);
  const pqxx::row r = tx.exec_params1(truncate_sql(plan.target, shape.exists, plan.keyless, _ctx,
                                                   versioned(shape, _ctx) ? &all : nullptr),
                                      plan.target.schema, plan.target.name,
                                      bytea_hex(plan.rows->truncate_seq.bytes()));
  stats.deleted += r[0].as<size_t>();
  stats.tombstones += r[1].as<size_t>();
  ++stats.truncates_applied;
}

void table_writer::write(pqxx::transaction_base& tx, const table_plan& plan,
                         const table_shape& shape, size_t begin, size_t end, apply_stats& stats) {
  if (plan.keyless) {
    for (const column_group& g : plan.groups)
      write_appends(tx, plan, shape, g, begin, end, stats);
    return;
  }
  write_deletes(tx, plan, shape, begin, end, stats);
  for (const column_group& g : plan.groups)
    write_upserts(tx, plan, shape, g, begin, end, stats);
}

void table_writer::write_deletes(pqxx::transaction_base& tx, const table_plan& plan,
                                 const table_shape& shape, size_t begin, size_t end,
                                 apply_stats& stats) {
  const size_t nkeys = plan.key_columns.size();
  // Where the table does not exist yet only tombstones are written and the key columns'
  // types do not matter.
  std::vector<column_def> key_defs(nkeys);
  std::vector<const column_def*> keys(nkeys);
  for (size_t k = 0; k < nkeys; ++k) {
    const column_def* c = shape.find(plan.key_columns[k]);
    key_defs[k] = {plan.key_columns[k], c ? c->type : std::string("text")};
    keys[k] = &key_defs[k];
  }
  reset(3 + nkeys);
  size_t count = 0;
  std::string scratch;
  for (size_t i = begin; i < end; ++i) {
    const merged_row& row = plan.row(i);
    if (plan.rejected[i] || row.delete_seq.empty()) continue;
    ++count;
    if (!_options.delete_enabled) continue;
    array(0).add_bytea(row.key.canonical);
    array(1).add_bytea(row.delete_seq.bytes());
    array(2).add(key_json(plan.key_columns, row.key.values));
    for (size_t k = 0; k < nkeys; ++k)
      add_value(array(3 + k), row.key.values[k], *keys[k], scratch);
  }
  if (count == 0) return;
  if (!_options.delete_enabled) {
    stats.deletes_ignored += count;
    return;
  }
  _params.clear();
  _params.push_back(plan.target.schema);
  _params.push_back(plan.target.name);
  for (size_t a = 0; a < 3 + nkeys; ++a)
    _params.push_back(array(a).take());
  const std::vector<const column_def*> all = data_columns(plan, shape);
  const pqxx::row r = tx.exec_params1(
      delete_sql(plan.target, keys, shape.exists, _ctx, versioned(shape, _ctx) ? &all : nullptr),
      pqxx::prepare::make_dynamic_params(_params));
  stats.deleted += r[0].as<size_t>();
  stats.tombstones += r[1].as<size_t>();
}

void table_writer::write_upserts(pqxx::transaction_base& tx, const table_plan& plan,
                                 const table_shape& shape, const column_group& group, size_t begin,
                                 size_t end, apply_stats& stats) {
  const auto [first, last] = range_of(group.items, begin, end);
  if (!any_accepted(plan, first, last)) return;
  const std::vector<const column_def*> keys = key_columns(plan, shape);
  const std::vector<const column_def*> cols = group_columns(plan, shape, group);
  const bool per_column = versioned(shape, _ctx);
  const size_t nkeys = keys.size();
  // Arrays: key, row CSN, [column CSN map], key columns, columns.
  const size_t lead = per_column ? 3 : 2;
  const size_t base = lead + nkeys;
  reset(base + cols.size());
  size_t count = 0;
  std::string scratch, map;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const merged_row& row = plan.row(i);
    ++count;
    array(0).add_bytea(row.key.canonical);
    array(1).add_bytea(row.upsert_seq.bytes());
    for (size_t k = 0; k < nkeys; ++k) {
      add_value(array(lead + k), row.key.values[k], *keys[k], scratch);
    }
    map = "{";
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      const auto pos = static_cast<size_t>(_position[static_cast<size_t>(slot)]);
      add_value(array(base + pos), row.columns[k].v, *cols[pos], scratch);
      if (per_column) {
        if (map.size() > 1) map.push_back(',');
        append_json_string(map, cols[pos]->name);
        map += ":\"" + row.columns[k].seq.hex() + "\"";
      }
    }
    if (per_column) array(2).add(map + "}");
  }
  if (count == 0) return;
  _params.clear();
  _params.push_back(plan.target.schema);
  _params.push_back(plan.target.name);
  for (size_t a = 0; a < base + cols.size(); ++a)
    _params.push_back(array(a).take());
  const std::string sql =
      per_column ? upsert_versioned_sql(plan.target, keys, cols, data_columns(plan, shape), _ctx)
                 : upsert_sql(plan.target, keys, cols, _ctx);
  const pqxx::result r = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(_params));
  const auto written = static_cast<size_t>(r.affected_rows());
  stats.upserted += written;
  stats.stale += count - std::min(count, written);
}

void table_writer::write_appends(pqxx::transaction_base& tx, const table_plan& plan,
                                 const table_shape& shape, const column_group& group, size_t begin,
                                 size_t end, apply_stats& stats) {
  const auto [first, last] = range_of(group.items, begin, end);
  if (!any_accepted(plan, first, last)) return;
  const std::vector<const column_def*> cols = group_columns(plan, shape, group);
  constexpr size_t base = 7;  // op, csn, source ts, tx, topic, partition, offset
  reset(base + cols.size());
  size_t count = 0;
  std::string scratch;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const change& c = plan.keyless_change(i);
    ++count;
    array(0).add(to_string(c.op));
    array(1).add_bytea(c.seq.bytes());
    const int64_t ts = c.source.source_ts.value();
    if (ts > 0) {
      array(2).add_int(ts / 1000);
    } else {
      array(2).add_null();
    }
    if (c.source.tx.empty()) {
      array(3).add_null();
    } else {
      array(3).add(c.source.tx);
    }
    if (c.source.origin.topic.empty()) {
      array(4).add_null();
      array(5).add_null();
      array(6).add_null();
    } else {
      array(4).add(c.source.origin.topic);
      array(5).add_int(c.source.origin.partition.value());
      array(6).add_int(c.source.origin.offset.value());
    }
    for (size_t k = 0; k < c.after.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      const auto pos = static_cast<size_t>(_position[static_cast<size_t>(slot)]);
      add_value(array(base + pos), c.after[k].v, *cols[pos], scratch);
    }
  }
  if (count == 0) return;
  _params.clear();
  for (size_t a = 0; a < base + cols.size(); ++a)
    _params.push_back(array(a).take());
  const pqxx::result r =
      tx.exec_params(append_sql(plan.target, cols), pqxx::prepare::make_dynamic_params(_params));
  stats.appended += static_cast<size_t>(r.affected_rows());
}

}  // namespace sluice
