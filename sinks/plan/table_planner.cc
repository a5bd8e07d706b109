#include "sinks/plan/table_planner.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "sinks/plan/change_dead_letter.h"
#include "sinks/plan/json_text.h"
#include "sinks/plan/plan_rejects.h"

namespace sluice {
namespace {

constexpr std::string_view reserved_prefix = "_sluice_";

bool reserved(std::string_view target) {
  return target.substr(0, reserved_prefix.size()) == reserved_prefix;
}

bool has_nul(const value& v) {
  return (v.kind == value_kind::string || v.kind == value_kind::json) &&
         std::memchr(v.text.data(), '\0', v.text.size()) != nullptr;
}

void merge_kind(planned_column& c, const value& v) {
  if (v.kind == value_kind::null || v.kind == value_kind::absent) return;
  if (c.kind == value_kind::null) {
    c.kind = v.kind;
  } else if (c.kind != v.kind) {
    c.mixed = true;
  }
}

std::string label(const target_table& t) {
  return t.schema + "." + t.name;
}

// sluice's state, which no message may reach whatever the target's rules say.
std::optional<std::string> state_target(const target_table& t, std::string_view state_schema) {
  if (t.schema == state_schema) return "the target schema \"" + t.schema + "\" is sluice's state";
  return std::nullopt;
}

// The type the batch's schemas give a source column: the widest of those that type it.
column_type stream_type(const table_rows& tr, std::string_view source) {
  column_type out;
  for (const shared_column_types& types : tr.types) {
    if (const column_types::column* c = types->find(source)) out = wider_of(out, c->type);
  }
  return out;
}

void assign_types(table_plan& p, const std::vector<std::string>& key_sources) {
  if (p.rows->types.empty()) return;
  for (planned_column& c : p.columns)
    c.type = stream_type(*p.rows, c.source);
  p.key_types.clear();
  for (const std::string& source : key_sources)
    p.key_types.push_back(stream_type(*p.rows, source));
}

}  // namespace

const planned_column* table_plan::find(const std::string& name) const {
  for (const planned_column& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

namespace {
routing_options with_limit(routing_options routing, size_t max_identifier_bytes) {
  routing.max_identifier_bytes = max_identifier_bytes;
  return routing;
}
}  // namespace

table_planner::table_planner(const apply_options& options, target_rules rules)
    : _options(options),
      _rules(std::move(rules)),
      _router(with_limit(options.routing, _rules.max_identifier_bytes)),
      _filter(options.tables_include, options.tables_exclude) {}

std::vector<table_plan> table_planner::plan(const merged_batch& batch,
                                            std::vector<dead_letter>& rejects) {
  std::vector<table_plan> plans;
  for (const table_rows& tr : batch.tables) {
    const std::string_view topic = tr.topic;
    // Left out by tables.include / tables.exclude (the decode stage drops such changes;
    // completed chunks reach the applier without passing it).
    if (!_filter.allows(*tr.table)) continue;
    auto target = _router.route(tr.table->name, topic);
    if (!target) {
      reject_rows(tr, "cannot route " + tr.table->name.qualified() + ": " + target.err().message,
                  dead_letter_kind::routing, nullptr, rejects);
      continue;
    }
    std::optional<std::string> why;
    if (_rules.reserved) why = _rules.reserved(*target);
    if (!why) why = state_target(*target, _options.state_schema);
    if (why) {
      reject_rows(
          tr, "cannot route " + tr.table->name.qualified() + " to " + label(*target) + ": " + *why,
          dead_letter_kind::routing, &*target, rejects);
      continue;
    }
    bool truncate_pending = !tr.truncate_seq.empty();
    if (!tr.rows.empty() || (truncate_pending && tr.keyless.empty())) {
      table_plan& p = plans.emplace_back();
      p.rows = &tr;
      p.target = *target;
      p.truncate = std::exchange(truncate_pending, false);
      plan_keyed(p, rejects);
      plan_shard(p, rejects);
    }
    if (!tr.keyless.empty()) {
      table_plan& p = plans.emplace_back();
      p.rows = &tr;
      p.target = std::move(*target);
      p.keyless = true;
      p.truncate = truncate_pending;
      plan_keyless(p, rejects);
    }
  }
  return plans;
}

int32_t table_planner::map_column(table_plan& p, const std::string& source, std::string& error) {
  auto target = _router.column(source);
  if (!target) {
    error = target.err().message;
    return -1;
  }
  if (reserved(*target)) {
    error = "column \"" + source + "\" uses the reserved prefix _sluice_";
    return -1;
  }
  auto& sources = _sources[p.target];
  auto [it, inserted] = sources.emplace(*target, source);
  if (!inserted && it->second != source) {
    error = "columns \"" + it->second + "\" and \"" + source + "\" both map to \"" + *target + "\"";
    return -1;
  }
  for (size_t i = 0; i < p.columns.size(); ++i) {
    if (p.columns[i].name == *target) return static_cast<int32_t>(i);
  }
  p.columns.push_back({std::move(*target), source, value_kind::null, false, {}});
  return static_cast<int32_t>(p.columns.size() - 1);
}

void table_planner::group(table_plan& p, size_t item, std::vector<uint32_t>& scratch,
                          std::map<std::vector<uint32_t>, uint32_t>& groups) {
  scratch.clear();
  for (size_t s = p.slot_begin[item]; s < p.slot_begin[item + 1]; ++s) {
    if (p.slots[s] >= 0) scratch.push_back(static_cast<uint32_t>(p.slots[s]));
  }
  std::sort(scratch.begin(), scratch.end());
  auto [it, inserted] = groups.emplace(scratch, static_cast<uint32_t>(p.groups.size()));
  if (inserted) p.groups.push_back({scratch, {}});
  p.groups[it->second].items.push_back(static_cast<uint32_t>(item));
  p.group_of[item] = it->second;
}

void table_planner::plan_keyed(table_plan& p, std::vector<dead_letter>& rejects) {
  const auto& rows = p.rows->rows;
  const size_t n = rows.size();
  p.rejected.assign(n, 0);
  p.group_of.assign(n, table_plan::no_group);
  p.slot_begin.assign(n + 1, 0);
  if (n == 0) return;

  // The table's key is the first row's; a row keyed otherwise is refused.
  const std::vector<std::string>& key_sources = rows.front().key.columns;
  std::string key_error;
  for (const std::string& source : key_sources) {
    auto target = _router.column(source);
    if (!target) {
      key_error = "key " + target.err().message;
      break;
    }
    if (reserved(*target)) {
      key_error = "key column \"" + source + "\" uses the reserved prefix _sluice_";
      break;
    }
    p.key_columns.push_back(std::move(*target));
    p.key_kinds.push_back(value_kind::null);
  }

  std::unordered_map<std::string, int32_t> by_source;
  std::vector<uint32_t> scratch;
  std::map<std::vector<uint32_t>, uint32_t> groups;
  for (size_t i = 0; i < n; ++i) {
    const merged_row& row = rows[i];
    p.slot_begin[i] = static_cast<uint32_t>(p.slots.size());
    std::string reason = key_error;
    if (reason.empty() && row.key.columns != key_sources) {
      reason = "key columns differ from the table's other rows";
    }
    for (const value& v : row.key.values) {
      if (reason.empty() && has_nul(v)) reason = "key value contains a NUL byte";
    }
    if (reason.empty() && row.partial && row.exists() &&
        _options.deletes == apply_delete_mode::soft) {
      // Per-column CSNs (_sluice_col_csn) are kept under hard deletes only: a soft-deleted
      // row would have to keep, and later clear, the columns set before its delete.
      reason = "partial image: per-column CSNs are not supported with delete.mode: soft";
    }
    for (const merged_column& col : row.columns) {
      int32_t slot = -1;
      if (reason.empty()) {
        auto target = _router.column(col.name);
        const auto key_at = target ? std::find(p.key_columns.begin(), p.key_columns.end(), *target)
                                   : p.key_columns.end();
        const bool is_key = key_at != p.key_columns.end();
        if (is_key) {
          // The key's values come from the key; the image may only repeat the same column.
          const std::string& key_source = key_sources[key_at - p.key_columns.begin()];
          if (col.name != key_source) {
            reason = "columns \"" + key_source + "\" and \"" + col.name + "\" both map to \"" +
                     *target + "\"";
          }
        } else {
          auto it = by_source.find(col.name);
          if (it != by_source.end()) {
            slot = it->second;
          } else {
            slot = map_column(p, col.name, reason);
            if (slot >= 0) by_source.emplace(col.name, slot);
          }
        }
        if (reason.empty() && has_nul(col.v)) {
          reason = "column \"" + col.name + "\" contains a NUL byte";
        }
      }
      p.slots.push_back(slot);
    }
    p.slot_begin[i + 1] = static_cast<uint32_t>(p.slots.size());
    if (!reason.empty()) {
      p.rejected[i] = 1;
      rejects.push_back(merged_row_dead_letter(*p.rows, row, label(p.target) + ": " + reason,
                                               dead_letter_kind::rejected, &p.target));
      continue;
    }
    for (size_t k = 0; k < row.key.values.size() && k < p.key_kinds.size(); ++k) {
      value_kind& kind = p.key_kinds[k];
      const value_kind seen = row.key.values[k].kind;
      if (kind == value_kind::null) {
        kind = seen;
      } else if (kind != seen) {
        kind = value_kind::string;  // mixed key kinds: text holds both
      }
    }
    if (!row.exists()) continue;
    p.partial = p.partial || row.partial;
    for (size_t k = 0; k < row.columns.size(); ++k) {
      const int32_t slot = p.slots[p.slot_begin[i] + k];
      if (slot >= 0) merge_kind(p.columns[static_cast<size_t>(slot)], row.columns[k].v);
    }
    group(p, i, scratch, groups);
  }
  assign_types(p, key_sources);
}

void table_planner::plan_shard(table_plan& p, std::vector<dead_letter>& rejects) {
  const table_rows& tr = *p.rows;
  const auto shard = [&](const std::string& source) {
    const auto& shards = _options.shard_columns;
    return std::find(shards.begin(), shards.end(), source) != shards.end();
  };
  if (!tr.rows.empty()) {
    for (size_t k = 0; k < p.key_columns.size(); ++k) {
      if (shard(tr.rows.front().key.columns[k])) p.shard_column = p.key_columns[k];
    }
  }
  if (!p.truncate) return;
  if (tr.truncate_scopes_differ) {
    reject_truncate(p,
                    "the truncates of " + tr.table->name.qualified() +
                        " name different shards (or some none): refused rather than remove "
                        "the rows of every shard",
                    dead_letter_kind::rejected, rejects);
    return;
  }
  const row_key& scope = tr.truncate_scope;
  if (scope.empty()) {
    // Unscoped, while its rows are a shard's: it would remove every shard's rows.
    if (!p.shard_column.empty()) {
      reject_truncate(p,
                      "a truncate of " + tr.table->name.qualified() +
                          " without its shard, whose rows are keyed by the shard column \"" +
                          p.shard_column + "\": refused rather than remove every shard's rows",
                      dead_letter_kind::rejected, rejects);
    }
    return;
  }
  auto column = _router.column(scope.columns.front());
  if (!column || (!p.shard_column.empty() && *column != p.shard_column)) {
    reject_truncate(p,
                    "the truncate's shard column \"" + scope.columns.front() +
                        "\" is not the shard column of its rows" +
                        (column ? std::string() : ": " + column.err().message),
                    dead_letter_kind::rejected, rejects);
    return;
  }
  p.truncate_column = *column;
  if (p.shard_column.empty() && tr.rows.empty()) p.shard_column = *column;
}

void table_planner::plan_keyless(table_plan& p, std::vector<dead_letter>& rejects) {
  const auto& changes = p.rows->keyless;
  const size_t n = changes.size();
  p.rejected.assign(n, 0);
  p.group_of.assign(n, table_plan::no_group);
  p.slot_begin.assign(n + 1, 0);
  std::unordered_map<std::string, int32_t> by_source;
  std::vector<uint32_t> scratch;
  std::map<std::vector<uint32_t>, uint32_t> groups;
  for (size_t i = 0; i < n; ++i) {
    const change& c = changes[i];
    p.slot_begin[i] = static_cast<uint32_t>(p.slots.size());
    std::string reason;
    if (_options.keyless == apply_keyless_mode::dead_letter) {
      reason = "table has no key (keyless: dead_letter)";
    }
    for (const column_value& cv : c.after) {
      int32_t slot = -1;
      if (reason.empty() && !cv.v.is_absent()) {
        auto it = by_source.find(cv.name);
        if (it != by_source.end()) {
          slot = it->second;
        } else {
          slot = map_column(p, cv.name, reason);
          if (slot >= 0) by_source.emplace(cv.name, slot);
        }
        if (reason.empty() && has_nul(cv.v)) {
          reason = "column \"" + cv.name + "\" contains a NUL byte";
        }
      }
      p.slots.push_back(slot);
    }
    p.slot_begin[i + 1] = static_cast<uint32_t>(p.slots.size());
    if (!reason.empty()) {
      p.rejected[i] = 1;
      const auto kind = _options.keyless == apply_keyless_mode::dead_letter
                            ? dead_letter_kind::keyless
                            : dead_letter_kind::rejected;
      rejects.push_back(
          keyless_dead_letter(*p.rows, c, label(p.target) + ": " + reason, kind, &p.target));
      continue;
    }
    for (size_t k = 0; k < c.after.size(); ++k) {
      const int32_t slot = p.slots[p.slot_begin[i] + k];
      if (slot >= 0) merge_kind(p.columns[static_cast<size_t>(slot)], c.after[k].v);
    }
    group(p, i, scratch, groups);
  }
  assign_types(p, {});
}

}  // namespace sluice
