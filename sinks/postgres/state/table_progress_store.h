#pragma once

#include <optional>
#include <string>
#include <vector>

#include <pqxx/transaction_base>

#include "sinks/plan/table_plan.h"
#include "sinks/postgres/session/state_schema.h"
#include "sinks/table_progress.h"

namespace sluice {

// <schema>.table_progress, keyed by connector name and target table. record() runs in the
// batch transaction, so what it says is exactly what committed; one round trip per batch
// whatever the number of tables, rows locked in table order (as every writer does, so two
// lanes cannot deadlock on them). Holds no connection. Threading: none of its own.
class table_progress_store {
 public:
  table_progress_store(const state_schema& schema, std::string connector);

  // The newest source timestamp of each plan's rows (of both lists: one statement, so one
  // lock order); a table's stored value never moves back (a late batch of older changes
  // keeps the newer timestamp).
  void record(pqxx::transaction_base& tx, const std::vector<table_plan>& plans,
              const std::vector<table_plan>& more = {}) const;
  // Every table of the connector, in table order.
  std::vector<table_progress> read(pqxx::transaction_base& tx) const;

 private:
  std::string _table;
  std::string _connector;
};

}  // namespace sluice
