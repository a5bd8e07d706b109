#include "sinks/mariadb/state/table_progress_store.h"

#include <algorithm>
#include <map>

#include "sinks/mariadb/state/state_sql.h"

namespace sluice::mdb {
namespace {

// ISO 8601 in UTC with microseconds (sessions run in UTC).
std::string iso_utc(const std::string& column) {
  return "DATE_FORMAT(" + column + ", '%Y-%m-%dT%H:%i:%s.%fZ')";
}

}  // namespace

table_progress_store::table_progress_store(const state_schema& schema, std::string connector,
                                           sql_dialect dialect)
    : _table(schema.table("table_progress")), _connector(std::move(connector)), _dialect(dialect) {}

void table_progress_store::record(connection& conn, const std::vector<table_plan>& plans,
                                  const std::vector<table_plan>& more) const {
  // One row per target (two source tables may route to one target), sorted: the lock order.
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
  std::vector<std::string> micros;
  micros.reserve(newest.size());
  for (const auto& [target, ns] : newest)
    micros.push_back(std::to_string(ns / 1000));
  std::vector<param> cells;
  size_t i = 0;
  for (const auto& [target, ns] : newest) {
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(target.schema));
    cells.push_back(param::text(target.name));
    // 0 (no source timestamp) stays NULL; datetime(6) ends at year 9999.
    const bool known = ns > 0 && ns / 1000 < 253'402'300'800'000'000;
    cells.push_back(known ? param::text(micros[i]) : param::null());
    ++i;
  }
  conn.exec_bulk(table_progress_upsert_sql(_table, _dialect), 4, cells);
}

std::vector<table_progress> table_progress_store::read(connection& conn) const {
  const result r = conn.query("SELECT target_schema, target_table, " + iso_utc("newest_source_ts") +
                                  ", " + iso_utc("applied_at") + " FROM " + _table +
                                  " WHERE connector = ? ORDER BY target_schema, target_table",
                              std::vector{param::text(_connector)});
  std::vector<table_progress> out;
  out.reserve(r.size());
  for (const auto& row : r.rows) {
    table_progress p;
    p.table = {*row.at(0), *row.at(1)};
    p.newest_source_ts = row.at(2);
    p.applied_at = *row.at(3);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace sluice::mdb
