#include "sinks/mariadb/session/mdb_session.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "sinks/mariadb/session/session_options.h"

namespace sluice::mdb {
namespace {

// The oldest MariaDB sluice runs on (SPEC §6b).
constexpr unsigned long oldest_mariadb = 100600;

// Sleeps `total`, in slices, while go() says so; false when it stopped early.
bool sleep_while(std::chrono::milliseconds total, const keep_going& go) {
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

mdb_session::mdb_session(session_options options, retry_policy policy, std::string role,
                         session_observer* observer)
    : _options(std::move(options)),
      _policy(policy),
      _role(std::move(role)),
      _observer(observer),
      _settings(make_connect_settings(_options, _role)),
      _schema(_options.state_schema) {
  if (_policy.statement_attempts < 1) _policy.statement_attempts = 1;
}

mdb_session::~mdb_session() = default;

void mdb_session::open() {
  // Connects and runs the init statements (session_options.h) before anything else.
  auto conn = std::make_unique<mdb::connection>(_settings);
  const result limits = conn->query("SELECT @@max_allowed_packet, VERSION()");
  const unsigned long version = conn->server_version();
  const std::string text = limits.at(0, 1).value_or("");
  if (text.find("MariaDB") != std::string::npos && version < oldest_mariadb) {
    throw std::runtime_error("MariaDB " + text + " is too old: sluice needs MariaDB 10.6 or later");
  }
  if (_on_open) _on_open(*conn);
  _max_allowed_packet = std::stoull(limits.at(0, 0).value_or("0"));
  _server_version = version;
  _server_version_text = text;
  _conn = std::move(conn);
  if (_opened_before && _observer) _observer->reconnected(_role);
  _opened_before = true;
}

mdb::connection& mdb_session::connection() {
  try {
    if (!_conn) open();
    if (_options.migrate && !_migrated) {
      _schema.migrate(*_conn);
      _migrated = true;
    }
  } catch (...) {
    _open_failed = true;
    throw;
  }
  return *_conn;
}

void mdb_session::drop() {
  _conn.reset();
  if (_on_drop) _on_drop();
}

target_error_class mdb_session::classify(const std::exception& e) {
  const bool opening = _open_failed;
  _open_failed = false;
  target_error_class c = opening ? classify_connect_error(e) : classify_mdb_error(e);
  // A lost connection is a lost connection wherever it is noticed.
  if ((c.action == target_error_action::fatal || c.action == target_error_action::retry) && _conn &&
      _conn->broken()) {
    c.action = target_error_action::reconnect;
  }
  return c;
}

void mdb_session::report(const target_error_class& error, retry_state& state) {
  _last_error = error;
  if (_observer) _observer->error(error);
  if (error.action != target_error_action::reconnect &&
      error.action != target_error_action::in_doubt) {
    // The attempt may have left a transaction open (1205 rolls back the statement alone, a
    // rejected value the statement, a failure of the caller's own none): the next attempt
    // starts clean. A connection that cannot even roll back is dropped.
    if (_conn) {
      try {
        _conn->exec("ROLLBACK");
      } catch (...) {
        drop();
      }
    }
    return;
  }
  drop();
  if (state.connection_failures++ == 0) state.outage_since = std::chrono::steady_clock::now();
  if (!_down) {
    _down = true;
    if (_observer) _observer->unreachable(_role, error);
  }
}

bool mdb_session::wait_to_retry(const target_error_class& error, retry_state& state,
                                const keep_going& go) {
  const retry_step step = next_retry(_policy, error.action, state);
  if (!step.wait) return false;
  if (step.stalled) {
    _stalled = true;
    if (_observer) _observer->stalled(_role, error);
  }
  return sleep_while(*step.wait, go);
}

void mdb_session::give_up(const target_error_class& error, std::exception_ptr failure) const {
  if (error.action == target_error_action::refused && error.message.starts_with("2026:")) {
    throw session_error(error,
                        "MariaDB's TLS was not accepted (fix ssl-mode or ssl-ca in mariadb.dsn, "
                        "or the server's certificate, then restart): " +
                            error.message);
  }
  if (error.action == target_error_action::refused) {
    throw session_error(error,
                        "MariaDB refused the login (fix mariadb.dsn or the server's users and "
                        "grants, then restart): " +
                            error.message);
  }
  if (error.action == target_error_action::reconnect ||
      error.action == target_error_action::in_doubt) {
    throw session_error(error, "MariaDB unreachable for longer than the retry timeout (" +
                                   seconds_text(_policy.outage_limit) + "): " + error.message);
  }
  std::rethrow_exception(failure);
}

void mdb_session::withdraw() {
  end_stall();
  if (!_down) return;
  _down = false;
  if (_observer) _observer->withdrawn(_role);
}

void mdb_session::attempt_succeeded() {
  succeeded();
  end_stall();
}

void mdb_session::stalled_by(const target_error_class& why) {
  const bool news = !_stalled || _last_error.message != why.message;
  _stalled = true;
  _last_error = why;
  if (news && _observer) _observer->stalled(_role, why);
}

void mdb_session::end_stall() {
  if (!_stalled) return;
  _stalled = false;
  if (_observer) _observer->stall_ended(_role);
}

void mdb_session::succeeded() {
  if (!_down) return;
  _down = false;
  if (_observer) _observer->reachable(_role);
}

}  // namespace sluice::mdb
