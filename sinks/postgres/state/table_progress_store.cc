#include "sinks/postgres/state/table_progress_store.h"

#include <algorithm>
#include <map>

#include <pqxx/result>

#include "sinks/postgres/sql/pg_array.h"

namespace sluice {
namespace {

// ISO 8601 in UTC with microseconds, whatever the session's TimeZone.
std::string iso_utc(const std::string& column) {
  return "to_char(" + column + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')";
}

}  // namespace

table_progress_store::table_progress_store(const state_schema& schema, std::string connector)
    : _table(schema.table("table_progress")), _connector(std::move(connector)) {}

void table_progress_store::record(pqxx::transaction_base& tx, const std::vector<table_plan>& plans,
                                  const std::vector<table_plan>& more) const {
  // One row per target (two source tables may route to one target; ON CONFLICT cannot
  // touch a row twice in one statement), sorted: the lock order.
  std::map<target_table, int64_t> newest;
  for (const auto* list : {&plans, &more}) {
    for (const table_plan& p : *list) {
      // A plan refused whole (a folded source, failed DDL) applied nothing there.
      if (!p.truncate && std::find(p.rejected.begin(), p.rejected.end(), 0) == p.rejected.end()) {
        continue;
      }
      int64_t& ns = newest[p.target];
      ns = std::max(ns, p.rows ? p.rows->newest_source_ts.value() : 0);
    }
  }
  if (newest.empty()) return;
  pg_array schemas, tables, stamps;
  for (const auto& [target, ns] : newest) {
    schemas.add(target.schema);
    tables.add(target.name);
    stamps.add_int(ns);
  }
  // Microseconds: PostgreSQL's timestamp resolution. 0 (no source timestamp) stays NULL,
  // and GREATEST ignores NULLs.
  tx.exec_params("INSERT INTO " + _table +
                     " AS p (connector, target_schema, target_table, newest_source_ts) "
                     "SELECT $1, s, t, CASE WHEN ns > 0 THEN timestamptz 'epoch' + "
                     "(ns / 1000) * interval '1 microsecond' END "
                     "FROM unnest($2::text[], $3::text[], $4::int8[]) AS u(s, t, ns) "
                     "ON CONFLICT (connector, target_schema, target_table) DO UPDATE SET "
                     "newest_source_ts = GREATEST(p.newest_source_ts, EXCLUDED.newest_source_ts), "
                     "applied_at = now()",
                 _connector, schemas.take(), tables.take(), stamps.take());
}

std::vector<table_progress> table_progress_store::read(pqxx::transaction_base& tx) const {
  const pqxx::result r =
      tx.exec_params("SELECT target_schema, target_table, " + iso_utc("newest_source_ts") + ", " +
                         iso_utc("applied_at") + " FROM " + _table +
                         " WHERE connector = $1 ORDER BY target_schema, target_table",
                     _connector);
  std::vector<table_progress> out;
  out.reserve(r.size());
  for (const pqxx::row& row : r) {
    table_progress p;
    p.table = {row[0].as<std::string>(), row[1].as<std::string>()};
    if (!row[2].is_null()) p.newest_source_ts = row[2].as<std::string>();
    p.applied_at = row[3].as<std::string>();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace sluice
