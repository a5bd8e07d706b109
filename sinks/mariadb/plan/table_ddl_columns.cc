// What DDL a plan needs against a table's shape: the columns, keys and metadata columns to
// create or add, the widenings — table_ddl's decisions, apart from the statements it runs
// (table_ddl.cc).
#include "sinks/mariadb/plan/table_ddl.h"

#include <algorithm>
#include <set>

#include "sinks/mariadb/plan/mdb_type.h"
#include "sinks/mariadb/plan/table_ddl_parts.h"
#include "sinks/mariadb/sql/meta_columns.h"
#include "sinks/plan/type_growth.h"

namespace sluice::mdb {

using namespace ddl_parts;

const table_shape& table_ddl::shape(const target_table& target) const {
  static const table_shape none;
  auto it = _shapes.find(target);
  return it == _shapes.end() ? none : it->second;
}

const std::string* table_ddl::override_of(const target_table& target,
                                          const std::string& column) const {
  auto t = _overrides.find(label(target));
  if (t == _overrides.end()) return nullptr;
  auto c = t->second.find(column);
  return c == t->second.end() ? nullptr : &c->second;
}

std::string table_ddl::column_definition(const target_table& target,
                                         const planned_column& column) const {
  if (const std::string* configured = override_of(target, column.name)) return *configured;
  if (std::string typed = mdb_type_for(column.type, _dialect); !typed.empty()) return typed;
  return mdb_type_for_kind(column.kind, column.mixed, _dialect);
}

std::vector<column_spec> table_ddl::key_definitions(const table_plan& plan) const {
  std::vector<key_column> key;
  for (size_t k = 0; k < plan.key_columns.size(); ++k) {
    key.push_back({k < plan.key_types.size() ? plan.key_types[k] : column_type{},
                   k < plan.key_kinds.size() ? plan.key_kinds[k] : value_kind::string});
  }
  const std::vector<std::string> types = key_types(key, _dialect);
  std::vector<column_spec> out;
  for (size_t k = 0; k < plan.key_columns.size(); ++k) {
    const std::string* configured = override_of(plan.target, plan.key_columns[k]);
    out.push_back({plan.key_columns[k], configured ? *configured : types[k]});
  }
  return out;
}

std::vector<column_spec> table_ddl::metadata_columns(const table_plan& plan, bool creating) const {
  const std::string collation(_dialect.text_collation());
  const std::string text = " CHARACTER SET utf8mb4 COLLATE " + collation;
  if (plan.keyless) {
    return {{meta::op, "varchar(16)" + text},
            {meta::csn, "varbinary(1024)"},
            {meta::source_ts, "datetime(6)"},
            {meta::tx, "longtext" + text},
            {meta::kafka_topic, "varchar(249)" + text},  // Kafka's longest topic name
            {meta::kafka_partition, "int"},
            {meta::kafka_offset, "bigint"},
            {meta::kafka_index, "int"}};
  }
  // _sluice_csn: the CSN's bytes, compared as bytes (varbinary: no collation, no padding);
  // _sluice_col_csn: per-column CSNs as a JSON object, column name -> lowercase hex of the CSN
  // bytes (MariaDB has no arrays; hex keeps byte order under a binary comparison).
  std::vector<column_spec> out = {
      {meta::csn, creating ? "varbinary(1024) NOT NULL" : "varbinary(1024)"},
      {meta::updated_at, "datetime(6)"}};
  if (_options.deletes == apply_delete_mode::soft) {
    out.push_back({meta::deleted, "boolean NOT NULL DEFAULT 0"});
  }
  if (plan.partial) out.push_back({meta::col_csn, "json"});
  return out;
}

bool table_ddl::needs_table(const table_plan& plan) const {
  for (const column_group& g : plan.groups) {
    for (uint32_t i : g.items) {
      if (!plan.rejected[i]) return true;
    }
  }
  return false;
}

bool table_ddl::needs_position_index(const table_plan& plan, const table_shape& shape) const {
  return plan.keyless && needs_table(plan) && !shape.position_index;
}

std::vector<column_spec> table_ddl::missing_columns(const table_plan& plan,
                                                    const table_shape& shape) const {
  std::vector<column_spec> out;
  if (!has_items(plan)) return out;
  if (needs_table(plan)) {
    std::set<uint32_t> used;
    for (const column_group& g : plan.groups)
      used.insert(g.columns.begin(), g.columns.end());
    for (uint32_t c : used) {
      const planned_column& col = plan.columns[c];
      if (!shape.find(col.name)) add_unique(out, {col.name, column_definition(plan.target, col)});
    }
  }
  if (shape.exists || needs_table(plan)) {
    for (column_spec& m : metadata_columns(plan, !shape.exists)) {
      if (!shape.find(m.name)) add_unique(out, std::move(m));
    }
  }
  return out;
}

std::vector<column_spec> table_ddl::widenings(const table_plan& plan,
                                              const table_shape& shape) const {
  std::vector<column_spec> out;
  if (!_options.auto_evolve_widen || !shape.exists || !needs_table(plan)) return out;
  for (const planned_column& col : plan.columns) {
    if (!col.type.known() || override_of(plan.target, col.name)) continue;
    const column_def* have = shape.find(col.name);
    if (!have || have->type.starts_with("char(")) continue;  // char pads: not its family
    const auto existing = portable_of_mdb(have->type);
    // Compared as the type MariaDB would really get (a timestamp(9) is a datetime(6)).
    const std::string wider = mdb_type_for(col.type, _dialect);
    const auto made = portable_of_mdb(type_of(wider));
    if (!existing || !made || !type_grew(*existing, *made)) continue;
    add_unique(out, {col.name, wider + (have->nullable ? "" : " NOT NULL")});
  }
  return out;
}

bool table_ddl::needs_work(const table_plan& p, const table_shape& shape) const {
  return (needs_table(p) && !shape.exists) || !missing_columns(p, shape).empty() ||
         !widenings(p, shape).empty() || needs_position_index(p, shape);
}

bool table_ddl::work_needed(const std::vector<table_plan*>& group, const table_shape& shape) const {
  return std::any_of(group.begin(), group.end(),
                     [&](const table_plan* p) { return needs_work(*p, shape); });
}

bool table_ddl::ready(const std::vector<table_plan>& plans) const {
  for (const table_plan& p : plans) {
    if (!has_items(p) && !p.truncate) continue;
    if (_failed.contains(p.target)) continue;
    auto it = _shapes.find(p.target);
    if (it == _shapes.end() || needs_work(p, it->second)) return false;
  }
  return true;
}

}  // namespace sluice::mdb
