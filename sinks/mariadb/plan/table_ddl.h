#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/ddl_sql.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/mariadb/sql/table_shape.h"
#include "sinks/plan/table_plan.h"

namespace sluice::mdb {

// A target table cannot take a batch and configuration forbids fixing it (auto.create or
// auto.evolve off), or what is there is not a table.
class schema_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What prepare() did for one target table.
struct ddl_outcome {
  target_table table;
  bool changed = false;  // DDL ran: created, columns added or widened, position index made
  // Why the table cannot take the batch ("" when it can): its DDL failed (its items became
  // ddl_failed dead letters), or an adopted table's key was refused (rejected dead letters).
  std::string error;
  bool lock_timeout = false;  // the DDL waited for its metadata lock past ddl_lock_timeout
  bool key_refused = false;   // error is key_refusal()'s or a key mismatch, not DDL
  bool ok() const { return error.empty(); }
};

// Auto-create and auto-evolve of target tables on MariaDB (SPEC §4 "Schema", §6b; the model:
// postgres/plan/table_ddl.h), and the cache of their shapes that the writer converts values by.
//
// Lifecycle: prepare() before every batch transaction, OUTSIDE it: MariaDB commits DDL
// implicitly (prepare() refuses to run inside a transaction). In the steady state (every table
// and column known) it does not touch the server. Otherwise it reads the shapes it lacks (two
// round trips for all of them) and changes each table that needs it, one table at a time:
//   for each table needing DDL:
//     CREATE DATABASE / CREATE TABLE / ADD COLUMN / ADD UNIQUE INDEX … IF NOT EXISTS
//       (idempotent: another lane or instance doing the same at once is harmless), each
//       statement under lock_wait_timeout = ddl_lock_timeout (a slice, whole seconds): on
//       1205 waiting(why) is called and the statement tried again, until
//       apply_options::ddl_wait_limit passes (0: forever; waiting() may throw to give up);
//     re-read the shape (what the server really made);
//     on failure: that table alone is refused — its items become ddl_failed dead letters and
//       it is tried again next batch (begin_batch()); the others go on.
// Columns are only ever added, never dropped or narrowed; widened only under
// auto.evolve.widen. The session's lock_wait_timeout and max_statement_time are set for the
// DDL (ddl_statement_timeout) and restored after. Threading: one per apply lane (connection).
class table_ddl {
 public:
  // Told why the DDL waits (a metadata lock held by another session): the applier reports
  // DEGRADED with it. May throw to give up (the applier's keep-going test); the session's
  // settings are restored first.
  using waiting_fn = std::function<void(const std::string& why)>;

  explicit table_ddl(const apply_options& options, sql_dialect dialect = {});
  // The server's dialect, once a connection told it (mdb_session's open hook).
  void set_dialect(sql_dialect dialect) { _dialect = dialect; }

  // Makes every plan's target able to take its items; one outcome per target looked at.
  // Items of a table whose DDL failed are rejected as ddl_failed (under ddl.failure:
  // dead_letter; otherwise the failure is thrown); items of a table whose key cannot hold the
  // batch's keys — another primary key, a _ci or PAD SPACE collation, a text/blob or
  // prefix-indexed key column — are rejected. Their dead letters are appended to rejects.
  // Connection and server-state errors (lost connection, deadlock, disk full) are thrown: the
  // session's policy waits them out.
  std::vector<ddl_outcome> prepare(connection& conn, std::vector<table_plan>& plans,
                                   std::vector<dead_letter>& rejects,
                                   const waiting_fn& waiting = {});

  // A new batch: its tables' DDL is tried again, however it failed before.
  void begin_batch() { _failed.clear(); }
  // The tables whose DDL failed in this batch, with the error.
  const std::map<target_table, std::string>& failures() const { return _failed; }
  // Whether prepare() has nothing to do for these plans (no round trip).
  bool ready(const std::vector<table_plan>& plans) const;
  // Makes the cached shapes of these plans' targets the ones this transaction's writes meet
  // (another lane or instance may have changed the tables), inside the batch transaction: opens
  // the tables (their shared metadata locks, held until COMMIT), then compares each table's
  // SHOW CREATE TABLE with the one its shape was last read with, and re-reads from
  // information_schema (two round trips) only the shapes that differ or were read outside a
  // transaction (by prepare()). Never DDL. In the steady state: 1 + tables round trips.
  void refresh(connection& conn, const std::vector<table_plan>& plans);

  // The cached shape; exists = false for a table not seen or not there.
  const table_shape& shape(const target_table& target) const;
  void forget() {
    _shapes.clear();
    _definitions.clear();
  }

  // The metadata columns a plan's table needs, as sluice creates them.
  std::vector<column_spec> metadata_columns(const table_plan& plan, bool creating) const;
  // The definition a new non-key column gets: the configured override, else the stream's type,
  // else from its values' kinds.
  std::string column_definition(const target_table& target, const planned_column& column) const;
  // The primary key's definitions for a plan (key_types(), overrides first).
  std::vector<column_spec> key_definitions(const table_plan& plan) const;

  // Why an existing table's primary key cannot keep the changes' keys apart; nothing when it
  // can. A key column with a case-insensitive or accent-insensitive collation (_ci, _ai…) or a
  // PAD SPACE one (MariaDB's *_bin): `a`, `A` and `a ` would be one row; a text or blob key
  // column or a key indexed by a prefix: keys sharing the prefix would be one row. (A char(n)
  // column with a binary collation is accepted: fixed-width codes, uuids — though char(n) drops
  // trailing spaces, whatever its collation.)
  static std::optional<std::string> key_refusal(const target_table& target,
                                                const table_shape& shape);

 private:
  struct session_guard;
  bool needs_table(const table_plan& plan) const;
  bool needs_position_index(const table_plan& plan, const table_shape& shape) const;
  bool needs_work(const table_plan& plan, const table_shape& shape) const;
  bool work_needed(const std::vector<table_plan*>& group, const table_shape& shape) const;
  std::vector<column_spec> missing_columns(const table_plan& plan, const table_shape& shape) const;
  std::vector<column_spec> widenings(const table_plan& plan, const table_shape& shape) const;
  const std::string* override_of(const target_table& target, const std::string& column) const;
  // Creates or evolves one table; returns its new shape and whether DDL ran.
  table_shape change_table(connection& conn, const target_table& t,
                           const std::vector<table_plan*>& group, table_shape shape, bool& changed,
                           const waiting_fn& waiting);
  void run_ddl(connection& conn, const std::string& sql, const target_table& t,
               std::chrono::steady_clock::time_point deadline, const waiting_fn& waiting);
  std::string check_key(table_plan& plan, const table_shape& shape,
                        std::vector<dead_letter>& rejects) const;

  const apply_options& _options;
  sql_dialect _dialect;
  std::map<std::string, std::map<std::string, std::string>> _overrides;
  // A shape read by prepare() (outside any transaction, so perhaps while an ALTER ran):
  // refresh() reads it again.
  void cache(const target_table& t, table_shape shape) {
    _shapes[t] = std::move(shape);
    _definitions.erase(t);
  }

  std::map<target_table, table_shape> _shapes;
  // SHOW CREATE TABLE of the shapes refresh() read under their metadata lock.
  std::map<target_table, std::string> _definitions;
  std::map<target_table, std::string> _failed;
};

}  // namespace sluice::mdb
