#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "sinks/keep_going.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/mdb_error_policy.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/retry_policy.h"
#include "sinks/session_error.h"
#include "sinks/session_observer.h"
#include "sinks/session_options.h"

namespace sluice::mdb {

// One MariaDB connection and everything about keeping it, as postgres/session/pg_session.h
// keeps PostgreSQL's: its settings (session_options.h: strict sql_mode, UTC, READ COMMITTED,
// the timeouts, program_name "sluice:<role>"), the state database's migration once per
// session, the round-trip deadline (Connector/C's read and write timeouts, so no watchdog),
// and the one retry loop (run_attempts) with the policy its user chose (retry_policy.h). The
// roles each work on a session; none loops on its own: a role with rules of its own for a
// failure (the batch applier's isolation of a rejected row, its resolution of a commit in
// doubt) answers on_failure.
//
// Lifecycle: construct (no I/O); the connection opens on first use and after every loss.
// Threading: one thread at a time uses a session; the observer is called on that thread.
class mdb_session {
 public:
  using keep_going = sluice::keep_going;

  // Throws std::invalid_argument when options.dsn does not parse.
  mdb_session(session_options options, retry_policy policy, std::string role,
              session_observer* observer = nullptr);
  ~mdb_session();
  mdb_session(const mdb_session&) = delete;
  mdb_session& operator=(const mdb_session&) = delete;

  // Runs body(mdb::connection&) until it succeeds, retrying as the policy says. Throws the
  // body's error when it is not transient, session_error when the policy gives up.
  template <typename F>
  auto run(F&& body) {
    return *run_while({}, std::forward<F>(body));
  }
  // As run(), but stops retrying once go() says false: then nothing.
  template <typename F>
  auto run_while(const keep_going& go, F&& body)
      -> std::optional<std::invoke_result_t<F, mdb::connection&>> {
    using R = std::invoke_result_t<F, mdb::connection&>;
    return run_attempts(
        go, [&](mdb::connection& conn) { return std::optional<R>(body(conn)); },
        [](const target_error_class&) { return after_failure::policy; });
  }

  // What a caller with rules of its own (the batch applier) makes of a failed attempt:
  enum class after_failure {
    policy,   // the policy's: back off and try again, or give up (throw)
    again,    // try again at once: the caller knows what to do differently
    rethrow,  // the failure is final: thrown as it is
  };
  // The one retry loop: attempt(conn) -> std::optional<R> until it gives a value (nullopt:
  // run another attempt at once), each failure reported, then handled as on_failure says.
  //
  //   loop
  //     go() false                 → nothing
  //     connection()               opens if needed: connect, init statements, limits, open
  //                                hook, migrate (once per session)
  //     attempt(conn)
  //       a value                  → reachable again? tell the observer; return it
  //       nullopt                  → again
  //     failed                     → classify (mdb_error_policy), report: a broken connection
  //                                  dropped, else ROLLBACK so the next attempt starts clean;
  //                                  on_failure(error): policy → back off or give up · again ·
  //                                  rethrow
  template <typename A, typename H>
  auto run_attempts(const keep_going& go, A&& attempt, H&& on_failure)
      -> std::invoke_result_t<A, mdb::connection&> {
    retry_state state;
    for (;;) {
      if (go && !go()) {
        withdraw();
        return std::nullopt;
      }
      target_error_class error;
      std::exception_ptr failure;
      try {
        mdb::connection& conn = connection();
        succeeded();
        state.connection_failures = 0;
        auto done = attempt(conn);
        if (!done) continue;
        attempt_succeeded();
        return done;
      } catch (const std::exception& e) {
        error = classify(e);
        failure = std::current_exception();
      }
      report(error, state);
      switch (on_failure(error)) {
        case after_failure::again:
          continue;
        case after_failure::rethrow:
          end_stall();
          std::rethrow_exception(failure);
        case after_failure::policy:
          if (wait_to_retry(error, state, go)) continue;
          if (go && !go()) continue;
          end_stall();
          give_up(error, failure);
      }
    }
  }

  // The connection, opened now if needed (no retries: throws what opening threw).
  mdb::connection& connection();
  // Closes the connection; the next use opens a new one.
  void drop();
  bool connected() const { return _conn != nullptr; }

  // PostgreSQL's sessions take work off their round-trip clock (a Kafka send inside a
  // transaction); Connector/C's timeouts only run while a read or write waits: nothing to do.
  void off_clock(bool) {}

  // Run in every new connection, after sluice's settings and before any body.
  void on_open(std::function<void(mdb::connection&)> hook) { _on_open = std::move(hook); }
  // Run whenever the connection is dropped (a role forgets per-connection state).
  void on_drop(std::function<void()> hook) { _on_drop = std::move(hook); }

  // Of the connection last opened (0 before the first): @@max_allowed_packet, the largest
  // statement or row the server takes; the server's version, MAJOR*10000 + MINOR*100 + PATCH,
  // and its text (VERSION(): "10.11.6-MariaDB-0+deb12u1").
  uint64_t max_allowed_packet() const { return _max_allowed_packet; }
  unsigned long server_version() const { return _server_version; }
  const std::string& server_version_text() const { return _server_version_text; }

  const std::string& role() const { return _role; }
  const retry_policy& policy() const { return _policy; }
  const session_options& options() const { return _options; }
  const connect_settings& settings() const { return _settings; }
  const state_schema& schema() const { return _schema; }
  const target_error_class& last_error() const { return _last_error; }
  bool down() const { return _down; }
  bool stalled() const { return _stalled; }

  // A wait that is not a failed attempt (a DDL behind another session's metadata lock,
  // waited out in short slices): the observer is told the session is stalled, once per reason,
  // until the work goes on (end_stall(), also at the next attempt's success).
  void stalled_by(const target_error_class& why);
  void end_stall();

 private:
  void open();
  target_error_class classify(const std::exception& e);
  // Reports a failure (last_error, the observer); a broken connection is dropped and an
  // outage begins (the observer is told once); a live one is rolled back.
  void report(const target_error_class& error, retry_state& state);
  bool wait_to_retry(const target_error_class& error, retry_state& state, const keep_going& go);
  void succeeded();
  void attempt_succeeded();
  void withdraw();
  [[noreturn]] void give_up(const target_error_class& error, std::exception_ptr failure) const;

  session_options _options;
  retry_policy _policy;
  std::string _role;
  session_observer* _observer;
  connect_settings _settings;
  state_schema _schema;
  std::function<void(mdb::connection&)> _on_open;
  std::function<void()> _on_drop;
  target_error_class _last_error;
  uint64_t _max_allowed_packet = 0;
  unsigned long _server_version = 0;
  std::string _server_version_text;
  bool _open_failed = false;  // the last failure happened while opening
  bool _opened_before = false;
  bool _down = false;     // in an outage: the observer was told
  bool _stalled = false;  // past the quiet attempts of a transient error: the observer was told
  bool _migrated = false;
  std::unique_ptr<mdb::connection> _conn;  // last: closed first
};

}  // namespace sluice::mdb
