#include "sinks/postgres/session/pg_session.h"

#include <libpq-fe.h>

#include <chrono>
#include <thread>

#include <pqxx/except>
#include <pqxx/nontransaction>

namespace sluice {
namespace {

// libpqxx 6.4 keeps connection_base::raw_connection() private (SPEC §1), and libpq-only paths
// need the session's own PGconn. An explicit template instantiation may name a private member
// ([temp.spec.general]/6), which is the one standard way to reach it without a second
// connection: the friend function below returns the member pointer.
using raw_connection_fn = pqxx::internal::pq::PGconn* (pqxx::connection_base::*)() const;
struct raw_connection_tag {
  friend raw_connection_fn member(raw_connection_tag);
};
template <raw_connection_fn M>
struct expose_raw_connection {
  friend raw_connection_fn member(raw_connection_tag) { return M; }
};
template struct expose_raw_connection<&pqxx::connection_base::raw_connection>;

// Sleeps `total`, in slices, while go() says so; false when it stopped early.
bool sleep_while(std::chrono::milliseconds total, const pg_session::keep_going& go) {
  const auto until = std::chrono::steady_clock::now() + total;
  for (;;) {
    if (go && !go()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(100)));
  }
}

std::string seconds_text(std::chrono::milliseconds ms) {
  return std::to_string(ms.count() / 1000) + " s";
}

}  // namespace

pg_session::pg_session(session_options options, retry_policy policy, std::string role,
                       session_observer* observer)
    : _options(std::move(options)),
      _policy(policy),
      _role(std::move(role)),
      _observer(observer),
      _schema(_options.state_schema),
      _watchdog(_options.round_trip_timeout) {
  session_conninfo info = make_session_conninfo(_options, _role);
  _conninfo = std::move(info.conninfo);
  _limits_sql = std::move(info.limits_sql);
  if (_policy.statement_attempts < 1) _policy.statement_attempts = 1;
}

pg_session::~pg_session() {
  _watchdog.disarm();
}

void pg_session::open() {
  auto conn = std::make_unique<pqxx::connection>(_conninfo);
  // The settings and the role's hook are round trips too: under the deadline from here on.
  _watchdog.arm(conn->sock());
  struct disarm {
    round_trip_watchdog& w;
    ~disarm() { w.disarm(); }
  } disarm_on_exit{_watchdog};
  try {
    conn->set_client_encoding("UTF8");
    // NOTICEs ("relation already exists, skipping") are not worth a line on stderr.
    pqxx::nontransaction(*conn).exec("SET client_min_messages TO warning; " + _limits_sql);
  } catch (const pqxx::broken_connection&) {
    throw;
  } catch (const std::exception& e) {
    // libpqxx reports a connection lost here as a plain failure ("Setting client encoding
    // failed."): it is a lost connection all the same, to be retried.
    if (!conn->is_open()) throw pqxx::broken_connection(e.what());
    throw;
  }
  // The upserts are MERGE statements (sql::merge_upsert), which PostgreSQL has since 15.
  if (conn->server_version() < 150000) {
    throw std::runtime_error("PostgreSQL " + std::to_string(conn->server_version()) +
                             " is too old: sluice needs PostgreSQL 15 or later");
  }
  if (_on_open) _on_open(*conn);
  _conn = std::move(conn);
  if (_opened_before && _observer) _observer->reconnected(_role);
  _opened_before = true;
}

pqxx::connection& pg_session::connection() {
  try {
    if (!_conn) open();
    if (_options.migrate && !_migrated) {
      round_trip guard(*this);
      _schema.migrate(*_conn);
      _migrated = true;
    }
  } catch (...) {
    _open_failed = true;
    throw;
  }
  return *_conn;
}

pg_conn* pg_session::raw() {
  return (connection().*member(raw_connection_tag{}))();
}

void pg_session::drop() {
  _watchdog.disarm();
  _conn.reset();
  if (_on_drop) _on_drop();
}

pg_error_class pg_session::classify(const std::exception& e) {
  const bool opening = _open_failed;
  _open_failed = false;
  pg_error_class c = opening ? classify_connect_error(e) : classify_pg_error(e);
  // A lost connection is a lost connection wherever it is noticed.
  if (c.action == pg_error_action::fatal && _conn && !_conn->is_open()) {
    c.action = pg_error_action::reconnect;
  }
  return c;
}

void pg_session::report(const pg_error_class& error, retry_state& state) {
  _last_error = error;
  if (_observer) _observer->error(error);
  if (error.action != pg_error_action::reconnect && error.action != pg_error_action::in_doubt) {
    return;
  }
  drop();
  if (state.connection_failures++ == 0) state.outage_since = std::chrono::steady_clock::now();
  if (!_down) {
    _down = true;
    if (_observer) _observer->unreachable(_role, error);
  }
}

bool pg_session::wait_to_retry(const pg_error_class& error, retry_state& state,
                               const keep_going& go) {
  const retry_step step = next_retry(_policy, error.action, state);
  if (!step.wait) return false;
  if (step.stalled) {
    _stalled = true;
    if (_observer) _observer->stalled(_role, error);
  }
  return sleep_while(*step.wait, go);
}

void pg_session::give_up(const pg_error_class& error, std::exception_ptr failure) const {
  if (error.action == pg_error_action::refused && tls_refused(error.message)) {
    throw session_error(error,
                        "PostgreSQL's TLS certificate was not accepted (fix sslrootcert or "
                        "sslmode in postgres.dsn, or the server's certificate, then restart): " +
                            error.message);
  }
  if (error.action == pg_error_action::refused) {
    throw session_error(error,
                        "PostgreSQL refused the login (fix postgres.dsn or the server's "
                        "roles, then restart): " +
                            error.message);
  }
  if (error.action == pg_error_action::reconnect || error.action == pg_error_action::in_doubt) {
    throw session_error(error, "PostgreSQL unreachable for longer than postgres.retry.timeout (" +
                                   seconds_text(_policy.outage_limit) + "): " + error.message);
  }
  std::rethrow_exception(failure);
}

void pg_session::withdraw() {
  end_stall();
  if (!_down) return;
  _down = false;
  if (_observer) _observer->withdrawn(_role);
}

void pg_session::attempt_succeeded() {
  succeeded();
  end_stall();
}

void pg_session::end_stall() {
  if (!_stalled) return;
  _stalled = false;
  if (_observer) _observer->stall_ended(_role);
}

void pg_session::succeeded() {
  if (!_down) return;
  _down = false;
  if (_observer) _observer->reachable(_role);
}

pg_session::round_trip::round_trip(pg_session& s) : _session(s) {
  if (s._round_trips++ == 0 && s._conn) s._watchdog.arm(s._conn->sock());
}

pg_session::round_trip::~round_trip() {
  if (--_session._round_trips == 0) _session._watchdog.disarm();
}

}  // namespace sluice
