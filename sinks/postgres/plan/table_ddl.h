#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <pqxx/connection_base>
#include <pqxx/transaction>
#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/plan/table_plan.h"
#include "sinks/postgres/sql/ddl_sql.h"
#include "sinks/postgres/sql/table_shape.h"

namespace sluice {

// A target table cannot take a batch and configuration forbids fixing it (auto.create or
// auto.evolve off). Fatal: the operator has to act.
class schema_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Auto-create and auto-evolve of target tables (SPEC §4 "Schema"), and the cache of their
// shapes that the writer casts values with.
//
// Lifecycle: prepare() before every batch transaction. In the steady state (every table and
// column known) it does not touch the database. Otherwise it reads the shapes it lacks and,
// when tables or columns are missing, creates them in a transaction of its own, committed
// before the batch's (DDL is idempotent, and a short transaction keeps the table's ACCESS
// EXCLUSIVE lock brief), under a per-table advisory lock so that lanes and instances
// creating the same table at once do not collide. Columns are only ever added, never
// dropped or narrowed. Threading: one per apply lane (connection).
class table_ddl {
 public:
  explicit table_ddl(const apply_options& options);

  // Makes every plan's target able to take its items. Items of a table whose primary key
  // differs from the batch's key are rejected (dead letters appended to rejects).
  //
  // Each table's DDL runs under a savepoint of its own. When it fails — auto.create or
  // auto.evolve off, permission denied, the column limit, a view or other relation of that
  // name — that table is isolated (ddl.failure: dead_letter): its plans' items become dead
  // letters of kind ddl_failed carrying the error, the others' DDL commits, and the table is
  // tried again in the next batch (begin_batch()). Under ddl.failure: fail the failure is
  // thrown (schema_error, or the PostgreSQL error). Transient and connection errors are
  // always thrown: the session's policy waits them out. The DDL runs under its own
  // lock_timeout and statement_timeout (apply_options::ddl_*); a lock wait that ends is thrown
  // as 55P03 naming the table and the backends holding locks on it (pid, user, application,
  // state, transaction age; never their query text), which DEGRADED's reason shows once it
  // outlasts errors.retry.max.
  void prepare(pqxx::connection_base& conn, std::vector<table_plan>& plans,
               std::vector<dead_letter>& rejects);

  // A new batch: its tables' DDL is tried again, however it failed before.
  void begin_batch() { _failed.clear(); }
  // The tables whose DDL failed in this batch, with the error.
  const std::map<target_table, std::string>& failures() const { return _failed; }

  // Whether prepare() has nothing to create or add for these plans (every target's shape is
  // cached and takes them): it then makes no round trip and may run inside a transaction.
  bool ready(const std::vector<table_plan>& plans) const;

  // Inside the batch transaction, once its key locks are held: re-reads the shapes that
  // another lane or instance changed since they were cached — a table created that this lane
  // saw missing, columns added, per-column CSNs begun — so that the writes follow the table
  // as it is now. Writers of one key serialize on its lock, so a change made after this
  // check cannot meet this batch's rows. One round trip when nothing changed; never DDL
  // (prepare() made sure of what the batch needs, and columns are only ever added).
  void refresh(pqxx::transaction_base& tx, const std::vector<table_plan>& plans);

  // The cached shape; exists = false for a table not seen or not there.
  const table_shape& shape(const target_table& target) const;
  // Forgets every shape (after a failed batch, or DDL made by someone else).
  void forget() { _shapes.clear(); }
  // Told true before the DDL statements and false after: the session lifts its round-trip
  // deadline meanwhile (a DDL has its own statement timeout, none by default).
  void on_long_statements(std::function<void(bool)> off_clock) {
    _off_clock = std::move(off_clock);
  }

  // The metadata columns a plan's table needs, with the types sluice creates them with.
  std::vector<column_def> metadata_columns(const table_plan& plan, bool creating) const;
  // The type a new column gets: the configured override, else the stream's type, else from
  // its values' kinds.
  std::string column_type(const target_table& target, const planned_column& column) const;

 private:
  struct need {
    table_plan* plan;
    std::vector<column_def> missing;  // columns to add (or, when !exists, all but the key)
  };
  bool needs_table(const table_plan& plan) const;
  // A keyless plan whose table lacks the unique index its appends skip known positions by.
  bool needs_position_index(const table_plan& plan, const table_shape& shape) const;
  table_shape with_position_index(pqxx::dbtransaction& tx, const target_table& t,
                                  const std::vector<table_plan*>& group, table_shape shape);
  std::vector<column_def> missing_columns(const table_plan& plan, const table_shape& shape) const;
  // Existing columns whose stream type strictly widens theirs, with the wider type; empty
  // unless auto.evolve.widen.
  std::vector<column_def> widenings(const table_plan& plan, const table_shape& shape) const;
  const std::string* override_of(const target_table& target, const std::string& column) const;
  void check_key(table_plan& plan, const table_shape& shape, std::vector<dead_letter>& rejects);
  // Creates or evolves one table (inside prepare()'s transaction); returns its new shape.
  table_shape change_table(pqxx::dbtransaction& tx, const target_table& t,
                           const std::vector<table_plan*>& group);

  const apply_options& _options;
  // Overrides with names normalized by the case policy: "schema.table" -> column -> type.
  std::map<std::string, std::map<std::string, std::string>> _overrides;
  std::map<target_table, table_shape> _shapes;
  std::map<target_table, std::string> _failed;  // this batch's DDL failures
  std::function<void(bool)> _off_clock;
};

}  // namespace sluice
