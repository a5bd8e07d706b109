#pragma once

#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/plan/table_plan.h"
#include "sinks/table_progress.h"

namespace sluice::mdb {

// <state db>.table_progress on MariaDB, keyed by connector name and target table (the
// contract of postgres/state/table_progress_store.h). record() runs in the batch transaction,
// so what it says is exactly what committed; one array-bound upsert per batch, rows in table
// order (as every writer does, so two lanes cannot deadlock on them). Holds no connection.
// Threading: none of its own.
class table_progress_store {
 public:
  // The upsert's text follows `dialect` (state_sql.h: MySQL 8's row alias).
  table_progress_store(const state_schema& schema, std::string connector,
                       sql_dialect dialect = sql_dialect::mariadb());

  // The newest source timestamp of each plan's rows (of both lists, one statement); a
  // table's stored value never moves back (a late batch of older changes keeps the newer).
  void record(connection& conn, const std::vector<table_plan>& plans,
              const std::vector<table_plan>& more = {}) const;
  // Every table of the connector, in table order.
  std::vector<table_progress> read(connection& conn) const;

 private:
  std::string _table;
  std::string _connector;
  sql_dialect _dialect;
};

}  // namespace sluice::mdb
