#include "sinks/postgres/state/route_registry.h"

#include <algorithm>

#include <pqxx/result>

#include "sinks/plan/plan_rejects.h"
#include "sinks/postgres/sql/pg_array.h"

namespace sluice {

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

route_registry::owners route_registry::claim(pqxx::transaction_base& tx,
                                             const std::vector<table_plan>& plans) const {
  pg_array schemas, tables, databases, source_schemas, source_tables, shard_columns;
  pg_array read_schemas, read_tables;
  size_t n = 0;
  for (const table_plan& p : plans) {
    if (!live(p) || _owners.contains(p.target)) continue;
    const table_name& source = p.rows->table->name;
    schemas.add(p.target.schema);
    tables.add(p.target.name);
    databases.add(source.database);
    source_schemas.add(source.schema);
    source_tables.add(source.table);
    if (p.shard_column.empty()) {
      shard_columns.add_null();
    } else {
      shard_columns.add(p.shard_column);
    }
    read_schemas.add(p.target.schema);
    read_tables.add(p.target.name);
    ++n;
  }
  if (n == 0) return {};
  // In (target, source) order: claims of lanes and instances wait on each other in one
  // order (no deadlock), and of two sources of one batch folding onto a new target, the
  // first by name claims it.
  tx.exec_params(
      "INSERT INTO " + _table +
          " (connector, target_schema, target_table, source_database, source_schema, "
          "source_table, shard_column) SELECT $1, u.s, u.t, u.d, u.ss, u.st, u.sc FROM "
          "unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) "
          "AS u(s, t, d, ss, st, sc) ORDER BY u.s, u.t, u.d, u.ss, u.st ON CONFLICT DO NOTHING",
      _connector, schemas.take(), tables.take(), databases.take(), source_schemas.take(),
      source_tables.take(), shard_columns.take());
  const pqxx::result r = tx.exec_params(
      "SELECT r.target_schema, r.target_table, r.source_database, r.source_schema, "
      "r.source_table, coalesce(r.shard_column, '') FROM " +
          _table +
          " r JOIN unnest($2::text[], $3::text[]) AS u(s, t) "
          "ON r.target_schema = u.s AND r.target_table = u.t WHERE r.connector = $1",
      _connector, read_schemas.take(), read_tables.take());
  owners read;
  for (const auto& row : r) {
    target_table target{row[0].as<std::string>(), row[1].as<std::string>()};
    read[std::move(target)] = {
        table_name{row[2].as<std::string>(), row[3].as<std::string>(), row[4].as<std::string>()},
        row[5].as<std::string>()};
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

}  // namespace sluice
