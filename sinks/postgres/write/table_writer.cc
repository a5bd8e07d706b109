#include "sinks/postgres/write/table_writer.h"

#include <algorithm>
#include <stdexcept>

#include <pqxx/except>
#include <pqxx/prepared_statement>
#include <pqxx/result>

#include "sinks/plan/json_text.h"
#include "sinks/postgres/sql/column_csn_sql.h"
#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {
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

// Whether the table's primary key is the plan's key: an index finds each key's row.
bool key_indexed(const table_plan& plan, const table_shape& shape) {
  if (shape.primary_key.size() != plan.key_columns.size()) return false;
  return std::is_permutation(shape.primary_key.begin(), shape.primary_key.end(),
                             plan.key_columns.begin());
}

bool versioned(const table_shape& shape, const write_sql_context& ctx) {
  return !ctx.soft_delete && shape.find(meta::col_csn) != nullptr;
}

}  // namespace

table_writer::table_writer(const apply_options& options, std::string tombstones_table)
    : _options(options),
      _ctx{std::move(tombstones_table),
           options.deletes == apply_delete_mode::soft,
           options.update_only,
           {}} {}

void table_writer::start(const lead_columns& lead, const std::vector<const column_def*>& a,
                         const std::vector<const column_def*>& b) {
  const size_t text_columns = a.size() + b.size();
  const size_t width = lead.size() + text_columns;
  _row.assign(width, field{});
  if (_texts.size() < width) _texts.resize(width);
  _targets.assign(lead.size(), value_target::plain);
  for (const column_def* c : a)
    _targets.push_back(target_of(c->type));
  for (const column_def* c : b)
    _targets.push_back(target_of(c->type));
  if (_options.bulk_path == apply_bulk_path::copy) {
    std::vector<const char*> types;
    types.reserve(width);
    for (const lead_column& l : lead)
      types.push_back(l.type);
    types.insert(types.end(), text_columns, "text");
    _stager.begin(types);
  } else {
    if (_arrays.size() < width) _arrays.resize(width);
    for (size_t i = 0; i < width; ++i)
      _arrays[i].clear();
  }
}

// A value as its column's type reads it (value_target.h): bytes as bytes into bytea, JSON
// tokens into json/jsonb, a JSON array as an array literal into an array; otherwise the
// value's own text.
void table_writer::set_value(size_t i, const value& v) {
  const rendered_value r = render_value(v, _targets[i], _texts[i]);
  switch (r.what) {
    case rendered_value::form::null:
      _row[i] = {};
      break;
    case rendered_value::form::text:
      _row[i] = {field::kind::text, r.text};
      break;
    case rendered_value::form::bytea:
      _row[i] = {field::kind::bytea, r.text};
      break;
  }
}

void table_writer::end_row() {
  const bool copy = _options.bulk_path == apply_bulk_path::copy;
  for (size_t i = 0; i < _row.size(); ++i) {
    const field& f = _row[i];
    switch (f.what) {
      case field::kind::null:
        copy ? _stager.add_null() : _arrays[i].add_null();
        break;
      case field::kind::text:
        copy ? _stager.add(f.text) : _arrays[i].add(f.text);
        break;
      case field::kind::bytea:
        copy ? _stager.add_bytea(f.text) : _arrays[i].add_bytea(f.text);
        break;
      case field::kind::integer:
        copy ? _stager.add_int(f.number) : _arrays[i].add_int(f.number);
        break;
    }
    _row[i] = {};
  }
  if (copy) _stager.end_row();
}

std::string table_writer::source(pqxx::transaction_base& tx, const lead_columns& lead,
                                 const std::vector<const column_def*>& a,
                                 const std::vector<const column_def*>& b, size_t params_from) {
  if (_options.bulk_path == apply_bulk_path::copy) {
    std::vector<std::string> aliases;
    aliases.reserve(lead.size() + a.size() + b.size());
    for (const lead_column& l : lead)
      aliases.emplace_back(l.alias);
    for (const column_def* c : a)
      aliases.push_back(quote_identifier(c->name));
    for (const column_def* c : b)
      aliases.push_back(quote_identifier(c->name));
    return _stager.flush(tx, aliases);
  }
  for (size_t i = 0; i < _row.size(); ++i)
    _params.push_back(_arrays[i].take());
  return unnest_source(params_from, lead, a, b);
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
  const std::vector<const column_def*>* versioned_columns = versioned(shape, _ctx) ? &all : nullptr;
  const std::string csn = bytea_hex(plan.rows->truncate_seq.bytes());
  if (!plan.truncate_column.empty()) {
    // One shard's: its rows only, and its own tombstone. A table without the column holds no
    // row of any shard.
    const row_key& scope = plan.rows->truncate_scope;
    const bool rows = shape.exists && shape.find(plan.truncate_column) != nullptr;
    const pqxx::row r = tx.exec_params1(
        shard_truncate_sql(plan.target, plan.truncate_column, rows, _ctx, versioned_columns),
        plan.target.schema, plan.target.name, csn, scope.values.front().text,
        bytea_hex(scope.canonical), key_json({plan.truncate_column}, scope.values));
    stats.deleted += r[0].as<size_t>();
    stats.tombstones += r[1].as<size_t>();
    ++stats.truncates_applied;
    return;
  }
  const pqxx::row r = tx.exec_params1(
      truncate_sql(plan.target, shape.exists, plan.keyless, _ctx, versioned_columns),
      plan.target.schema, plan.target.name, csn);
  stats.deleted += r[0].as<size_t>();
  stats.tombstones += r[1].as<size_t>();
  ++stats.truncates_applied;
}

void table_writer::write(pqxx::transaction_base& tx, const table_plan& plan,
                         const table_shape& shape, size_t begin, size_t end, apply_stats& stats) {
  // The statements below guard a shard's rows by its truncate tombstone too.
  _ctx.shard_column = plan.shard_column;
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
  const lead_columns& lead = delete_lead();
  start(lead, keys);
  size_t count = 0;
  for (size_t i = begin; i < end; ++i) {
    const merged_row& row = plan.row(i);
    if (plan.rejected[i] || row.delete_seq.empty()) continue;
    ++count;
    if (!_options.delete_enabled) continue;
    _row[0] = {field::kind::bytea, row.key.canonical};
    _row[1] = {field::kind::bytea, row.delete_seq.bytes()};
    _texts[2] = key_json(plan.key_columns, row.key.values);
    _row[2] = {field::kind::text, _texts[2]};
    for (size_t k = 0; k < nkeys; ++k)
      set_value(lead.size() + k, row.key.values[k]);
    end_row();
  }
  if (count == 0) return;
  if (!_options.delete_enabled) {
    stats.deletes_ignored += count;
    return;
  }
  _params = {plan.target.schema, plan.target.name};
  const std::string from = source(tx, lead, keys, {}, 3);
  const std::vector<const column_def*> all = data_columns(plan, shape);
  // A batch's deletes are few against the table, and the planner, costing each index probe
  // as a random read, joins them by hashing the whole table: a sequential scan of every row
  // on each batch (16 of a 26 ms statement, 200 deletes on a 30,000-row table; 3 ms with
  // the probes). Where the key is indexed, probes are what the statement should do, so the
  // hash and merge joins are ruled out for it alone: the next statement may be a table whose
  // key is not indexed (and a nested loop there would read the table once per row).
  const bool probe = shape.exists && key_indexed(plan, shape);
  if (probe) tx.exec("SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off");
  const pqxx::row r = tx.exec_params1(delete_sql(plan.target, keys, shape.exists, _ctx,
                                                 versioned(shape, _ctx) ? &all : nullptr, from),
                                      pqxx::prepare::make_dynamic_params(_params));
  if (probe) tx.exec("SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT");
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
  // (Update mode inserts nothing: no new rows to copy in.)
  if (!per_column && !_options.update_only && _options.bulk_path == apply_bulk_path::copy &&
      write_new_rows(tx, plan, keys, cols, first, last, stats)) {
    return;
  }
  const size_t nkeys = keys.size();
  // Fields: key, row CSN, [column CSN map], key columns, columns.
  const lead_columns& lead = per_column ? upsert_versioned_lead() : upsert_lead();
  const size_t base = lead.size() + nkeys;
  start(lead, keys, cols);
  size_t count = 0;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const merged_row& row = plan.row(i);
    ++count;
    _row[0] = {field::kind::bytea, row.key.canonical};
    _row[1] = {field::kind::bytea, row.upsert_seq.bytes()};
    for (size_t k = 0; k < nkeys; ++k)
      set_value(lead.size() + k, row.key.values[k]);
    // The column CSN map, in field 2 (versioned lead only: otherwise a key column's field).
    std::string* map = per_column ? &_texts[2] : nullptr;
    if (map) map->assign(1, '{');
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      const auto pos = static_cast<size_t>(_position[static_cast<size_t>(slot)]);
      set_value(base + pos, row.columns[k].v);
      if (map) {
        if (map->size() > 1) map->push_back(',');
        append_json_string(*map, cols[pos]->name);
        map->append(":\"");
        append_hex(*map, row.columns[k].seq.bytes());
        map->push_back('"');
      }
    }
    if (map) {
      map->push_back('}');
      _row[2] = {field::kind::text, *map};
    }
    end_row();
  }
  if (count == 0) return;
  _params = {plan.target.schema, plan.target.name};
  const std::string from = source(tx, lead, keys, cols, 3);
  const std::string sql = per_column ? upsert_versioned_sql(plan.target, keys, cols,
                                                            data_columns(plan, shape), _ctx, from)
                                     : upsert_sql(plan.target, keys, cols, _ctx, from);
  const pqxx::result r = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(_params));
  size_t written = static_cast<size_t>(r.affected_rows());
  size_t missing = 0;
  if (_options.update_only) {
    written = r[0][0].as<size_t>();
    missing = r[0][1].as<size_t>();
  }
  stats.upserted += written;
  stats.missing += missing;
  stats.stale += count - std::min(count, written + missing);
}

// Rows whose keys the table does not hold yet (an insert-only stream, a backfill) need none
// of the upsert's guards: there is no stored row to compare CSNs with, and no tombstone when
// the table has none at all. They are COPYed straight into the table under a savepoint, at
// the cost of a raw COPY. A key the table does hold fails that COPY (unique violation: the
// key locks keep every other writer of these keys out, so nothing else can), and the
// rows go the guarded way after all; the table is then not tried for a while, so that an
// update-heavy stream does not pay for a failed COPY on every batch.
bool table_writer::write_new_rows(pqxx::transaction_base& tx, const table_plan& plan,
                                  const std::vector<const column_def*>& keys,
                                  const std::vector<const column_def*>& cols, const uint32_t* first,
                                  const uint32_t* last, apply_stats& stats) {
  constexpr int skip_after_miss = 16;
  int& skip = _direct_skip[plan.target];
  if (skip > 0) {
    --skip;
    return false;
  }
  // now(): the value the guarded path gives _sluice_updated_at (the transaction's start).
  const pqxx::row r =
      tx.exec_params1("SELECT now()::text, EXISTS (SELECT 1 FROM " + _ctx.tombstones +
                          " WHERE target_schema = $1 AND target_table = $2)",
                      plan.target.schema, plan.target.name);
  if (r[1].as<bool>()) {
    skip = skip_after_miss;
    return false;
  }
  const std::string now = r[0].as<std::string>();

  std::vector<std::string> names;
  names.reserve(keys.size() + cols.size() + 3);
  for (const column_def* c : keys)
    names.push_back(quote_identifier(c->name));
  for (const column_def* c : cols)
    names.push_back(quote_identifier(c->name));
  names.push_back(quote_identifier(meta::csn));
  names.push_back(quote_identifier(meta::updated_at));
  if (_ctx.soft_delete) names.push_back(quote_identifier(meta::deleted));
  _direct.begin({});
  _direct_targets.clear();
  for (const column_def* c : keys)
    _direct_targets.push_back(target_of(c->type));
  for (const column_def* c : cols)
    _direct_targets.push_back(target_of(c->type));
  size_t count = 0;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const merged_row& row = plan.row(i);
    ++count;
    for (size_t k = 0; k < keys.size(); ++k)
      add_direct(&row.key.values[k], _direct_targets[k]);
    _values.assign(cols.size(), nullptr);
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot >= 0)
        _values[static_cast<size_t>(_position[static_cast<size_t>(slot)])] = &row.columns[k].v;
    }
    for (size_t k = 0; k < cols.size(); ++k)
      add_direct(_values[k], _direct_targets[keys.size() + k]);
    _direct.add_bytea(row.upsert_seq.bytes());
    _direct.add(now);
    if (_ctx.soft_delete) _direct.add("f");
    _direct.end_row();
  }
  if (count == 0) return false;

  tx.exec("SAVEPOINT sluice_new_rows");
  try {
    _direct.copy_into(tx, qualified_name(plan.target), names);
  } catch (const pqxx::sql_error& e) {
    if (e.sqlstate() != "23505")
      throw;  // anything else is the batch's error, as on the guarded path
    tx.exec("ROLLBACK TO SAVEPOINT sluice_new_rows");
    _stager.savepoint_rolled_back();
    skip = skip_after_miss;
    return false;
  }
  tx.exec("RELEASE SAVEPOINT sluice_new_rows");
  stats.upserted += count;
  return true;
}

void table_writer::add_direct(const value* v, value_target target) {
  const rendered_value r = v ? render_value(*v, target, _json) : rendered_value{};
  switch (r.what) {
    case rendered_value::form::null:
      _direct.add_null();
      break;
    case rendered_value::form::text:
      _direct.add(r.text);
      break;
    case rendered_value::form::bytea:
      _direct.add_bytea(r.text);
      break;
  }
}

void table_writer::write_appends(pqxx::transaction_base& tx, const table_plan& plan,
                                 const table_shape& shape, const column_group& group, size_t begin,
                                 size_t end, apply_stats& stats) {
  const auto [first, last] = range_of(group.items, begin, end);
  if (!any_accepted(plan, first, last)) return;
  const std::vector<const column_def*> cols = group_columns(plan, shape, group);
  // Fields: op, csn, source ts, tx, topic, partition, offset, index, columns.
  const lead_columns& lead = append_lead();
  const size_t base = lead.size();
  start(lead, cols);
  size_t count = 0;
  for (const uint32_t* it = first; it != last; ++it) {
    const size_t i = *it;
    if (plan.rejected[i]) continue;
    const change& c = plan.keyless_change(i);
    ++count;
    _row[0] = {field::kind::text, to_string(c.op)};
    _row[1] = {field::kind::bytea, c.seq.bytes()};
    const int64_t ts = c.source.source_ts.value();
    if (ts > 0) _row[2] = {field::kind::integer, {}, ts / 1000};
    if (!c.source.tx.empty()) _row[3] = {field::kind::text, c.source.tx};
    if (!c.source.origin.topic.empty()) {
      _row[4] = {field::kind::text, c.source.origin.topic};
      _row[5] = {field::kind::integer, {}, c.source.origin.partition.value()};
      _row[6] = {field::kind::integer, {}, c.source.origin.offset.value()};
      // No index, no position: NULL is distinct from every other, the row always appended.
      if (c.source.origin.index != message_origin::no_index)
        _row[7] = {field::kind::integer, {}, c.source.origin.index};
    }
    for (size_t k = 0; k < c.after.size(); ++k) {
      const int32_t slot = plan.slots[plan.slot_begin[i] + k];
      if (slot < 0) continue;
      const auto pos = static_cast<size_t>(_position[static_cast<size_t>(slot)]);
      set_value(base + pos, c.after[k].v);
    }
    end_row();
  }
  if (count == 0) return;
  _params.clear();
  const std::string from = source(tx, lead, cols, {}, 1);
  const append_once once = _options.append_skips_any_conflict ? append_once::any
                           : shape.partitioned                ? append_once::none
                                                              : append_once::position;
  const pqxx::result r = tx.exec_params(append_sql(plan.target, cols, from, once),
                                        pqxx::prepare::make_dynamic_params(_params));
  stats.appended += static_cast<size_t>(r.affected_rows());
}

}  // namespace sluice
