#include "sinks/mariadb/state/route_registry.h"

#include <algorithm>
#include <tuple>

#include "sinks/plan/plan_rejects.h"

namespace sluice::mdb {

route_registry::route_registry(const state_schema& schema, std::string connector)
    : _table(schema.table("routes")), _connector(std::move(connector)) {}

bool route_registry::live(const table_plan& plan) {
  return plan.rows && plan.rows->table &&
         (plan.truncate ||
          std::find(plan.rejected.begin(), plan.rejected.end(), 0) != plan.rejected.end());
}

bool route_registry::needs_claims(const std::vector<table_plan>& plans) const {
  return std::any_of(plans.begin(), plans.end(), [this](const table_plan& p) {
    return live(p) && !_owners.contains(p.target);
  });
}

route_registry::owners route_registry::claim(connection& conn,
                                             const std::vector<table_plan>& plans) const {
  // In (target, source) order: claims of lanes and instances wait on each other in one
  // order (no deadlock), and of two sources of one batch folding onto a new target, the
  // first by name claims it.
  std::vector<const table_plan*> fresh;
  for (const table_plan& p : plans) {
    if (live(p) && !_owners.contains(p.target)) fresh.push_back(&p);
  }
  if (fresh.empty()) return {};
  std::sort(fresh.begin(), fresh.end(), [](const table_plan* a, const table_plan* b) {
    return std::tie(a->target, a->rows->table->name) < std::tie(b->target, b->rows->table->name);
  });
  std::vector<param> cells;
  cells.reserve(fresh.size() * 7);
  for (const table_plan* p : fresh) {
    const table_name& source = p->rows->table->name;
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(p->target.schema));
    cells.push_back(param::text(p->target.name));
    cells.push_back(param::text(source.database));
    cells.push_back(param::text(source.schema));
    cells.push_back(param::text(source.table));
    cells.push_back(p->shard_column.empty() ? param::null() : param::text(p->shard_column));
  }
  // A target claimed already keeps its row as it is.
  conn.exec_bulk("INSERT INTO " + _table +
                     " (connector, target_schema, target_table, source_database, source_schema, "
                     "source_table, shard_column, claimed_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6)) "
                     "ON DUPLICATE KEY UPDATE connector = connector",
                 7, cells);
  std::string sql =
      "SELECT target_schema, target_table, source_database, source_schema, source_table, "
      "coalesce(shard_column, '') FROM " +
      _table + " WHERE connector = ? AND (target_schema, target_table) IN (";
  std::vector<param> params{param::text(_connector)};
  for (size_t i = 0; i < fresh.size(); ++i) {
    sql += i ? ", (?, ?)" : "(?, ?)";
    params.push_back(param::text(fresh[i]->target.schema));
    params.push_back(param::text(fresh[i]->target.name));
  }
  sql += ")";
  const result r = conn.query(sql, params);
  owners read;
  for (const auto& row : r.rows) {
    target_table target{*row.at(0), *row.at(1)};
    read[std::move(target)] = {table_name{*row.at(2), *row.at(3), *row.at(4)}, *row.at(5)};
  }
  return read;
}

void route_registry::learn(owners read) {
  _owners.merge(read);
}

void route_registry::enforce(std::vector<table_plan>& plans,
                             std::vector<dead_letter>& rejects) const {
  for (table_plan& p : plans) {
    if (!live(p)) continue;
    auto it = _owners.find(p.target);
    if (it == _owners.end() || it->second.source == p.rows->table->name) continue;
    // Shards of one logical table, each keyed by the column naming it.
    if (!p.shard_column.empty() && p.shard_column == it->second.shard_column) continue;
    reject_plan(p,
                "source table " + p.rows->table->name.qualified() +
                    " folds onto this target, which source table " + it->second.source.qualified() +
                    " already feeds (two sources may not share a target: SPEC §4; route one "
                    "elsewhere with tables.<source>.target" +
                    (it->second.shard_column.empty() && p.shard_column.empty()
                         ? std::string()
                         : "; shards of a logical table share one only when all are keyed by "
                           "one shard column (ByLogicalTableRouter, key.enforce.uniqueness)") +
                    ")",
                dead_letter_kind::routing, rejects);
  }
}

}  // namespace sluice::mdb
