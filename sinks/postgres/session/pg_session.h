#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <pqxx/connection>

#include "sinks/keep_going.h"
#include "sinks/postgres/session/pg_error_policy.h"
#include "sinks/postgres/session/round_trip_watchdog.h"
#include "sinks/postgres/session/session_options.h"
#include "sinks/postgres/session/state_schema.h"
#include "sinks/retry_policy.h"
#include "sinks/session_error.h"
#include "sinks/session_observer.h"

struct pg_conn;

namespace sluice {

// One PostgreSQL connection and everything about keeping it (issue "unattended survival"):
// its settings (timeouts and keepalives by default, application_name "sluice:<role>"), the
// state-schema migration on first connect, the round-trip deadline, and the one retry loop
// (run_attempts), with the policy its user chose (retry_policy.h). The roles (batch_applier,
// partition_owner, state_reader, state_janitor, target_key_reader) each work on a session;
// none loops on its own: a role with rules of its own for a failure (the batch applier's
// isolation of a rejected row, its resolution of a commit in doubt) answers on_failure.
//
// Lifecycle: construct (no I/O); the connection opens on first use and after every loss.
// Threading: one thread at a time uses a session; the observer is called on that thread.
class pg_session {
 public:
  using keep_going = sluice::keep_going;

  pg_session(session_options options, retry_policy policy, std::string role,
             session_observer* observer = nullptr);
  ~pg_session();
  pg_session(const pg_session&) = delete;
  pg_session& operator=(const pg_session&) = delete;

  // Runs body(pqxx::connection&) until it succeeds, retrying as the policy says. Throws the
  // body's error when it is not transient, session_error when the policy gives up.
  template <typename F>
  auto run(F&& body) {
    return *run_while({}, std::forward<F>(body));
  }
  // As run(), but stops retrying once go() says false: then nothing (a caller that abandons
  // its work, or is stopping).
  template <typename F>
  auto run_while(const keep_going& go, F&& body)
      -> std::optional<std::invoke_result_t<F, pqxx::connection&>> {
    using R = std::invoke_result_t<F, pqxx::connection&>;
    return run_attempts(
        go, [&](pqxx::connection& conn) { return std::optional<R>(body(conn)); },
        [](const pg_error_class&) { return after_failure::policy; });
  }

  // What a caller with rules of its own (the batch applier) makes of a failed attempt:
  enum class after_failure {
    policy,   // the policy's: back off and try again, or give up (throw)
    again,    // try again at once: the caller knows what to do differently (isolate a
              // rejected row, resolve a commit in doubt)
    rethrow,  // the failure is final: thrown as it is
  };
  // The one retry loop: attempt(conn) -> std::optional<R> until it gives a value (nullopt:
  // run another attempt at once), each failure reported, a broken connection dropped, then
  // handled as on_failure(error) says. Nothing when go() says stop.
  //
  //   loop
  //     go() false                 → nothing
  //     connection()               opens if needed: connect, SETs, open hook, migrate
  //     attempt(conn)              under the round-trip watchdog
  //       a value                  → reachable again? tell the observer; return it
  //       nullopt                  → again
  //     failed                     → classify (pg_error_policy), report, drop a broken
  //                                  connection; on_failure(error): policy → back off or give
  //                                  up · again · rethrow
  template <typename A, typename H>
  auto run_attempts(const keep_going& go, A&& attempt, H&& on_failure)
      -> std::invoke_result_t<A, pqxx::connection&> {
    retry_state state;
    for (;;) {
      if (go && !go()) {
        withdraw();
        return std::nullopt;
      }
      pg_error_class error;
      std::exception_ptr failure;
      try {
        pqxx::connection& conn = connection();
        succeeded();  // the server answered: whatever fails next, it is not unreachable
        state.connection_failures = 0;  // a later outage is a new one
        round_trip guard(*this);
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
          if (go && !go()) continue;  // abandoned while waiting: the loop's first test
          end_stall();
          give_up(error, failure);
      }
    }
  }

  // The connection, opened now if needed (no retries: throws what opening threw).
  pqxx::connection& connection();
  // The libpq handle of connection(), for libpq-only paths (COPY BINARY, pipeline mode) on
  // this very session (the batch's temporary stage lives in it).
  pg_conn* raw();
  // Closes the connection; the next use opens a new one.
  void drop();
  bool connected() const { return _conn != nullptr; }

  // While an attempt runs, its round trips are under the watchdog.
  class round_trip {
   public:
    explicit round_trip(pg_session& s);
    ~round_trip();
    round_trip(const round_trip&) = delete;
    round_trip& operator=(const round_trip&) = delete;

   private:
    pg_session& _session;
  };
  // Work that is not waiting for the server (producing dead letters to Kafka) inside an
  // attempt: off the round-trip clock.
  void off_clock(bool off) { _watchdog.off_clock(off); }

  // Run in every new connection, after sluice's settings and before any body (a role's own
  // SETs, or reading server limits).
  void on_open(std::function<void(pqxx::connection&)> hook) { _on_open = std::move(hook); }
  // Run whenever the connection is dropped (a role forgets per-connection state: prepared
  // statements, temporary tables).
  void on_drop(std::function<void()> hook) { _on_drop = std::move(hook); }

  const std::string& role() const { return _role; }
  const retry_policy& policy() const { return _policy; }
  const session_options& options() const { return _options; }
  const state_schema& schema() const { return _schema; }
  const pg_error_class& last_error() const { return _last_error; }
  bool down() const { return _down; }
  bool stalled() const { return _stalled; }

 private:
  void open();
  // What an attempt's failure means (a failure while opening is classified as a login or
  // reachability problem).
  pg_error_class classify(const std::exception& e);
  // Reports a failure (last_error, the observer); a broken connection is dropped and an
  // outage begins (the observer is told once).
  void report(const pg_error_class& error, retry_state& state);
  // Whether the policy tries again, after waiting its backoff; false when it gives up or
  // go() says stop.
  bool wait_to_retry(const pg_error_class& error, retry_state& state, const keep_going& go);
  // The server answered (a connection opened, or an attempt succeeded): an outage, if any,
  // is over.
  void succeeded();
  // An attempt succeeded: a stall, if any, is over too.
  void attempt_succeeded();
  // The session no longer waits out a transient error (succeeded, abandoned, or given up on
  // a failure of another kind): the observer is told once.
  void end_stall();
  // The user abandoned its work during an outage: the session no longer reports it (the
  // next attempt reports it again if it goes on).
  void withdraw();
  // After the policy said no: throws session_error for a refused login or an outage past
  // the policy's limit (in a person's words), else the failure itself.
  [[noreturn]] void give_up(const pg_error_class& error, std::exception_ptr failure) const;

  session_options _options;
  retry_policy _policy;
  std::string _role;
  session_observer* _observer;
  state_schema _schema;
  std::string _conninfo;
  std::string _limits_sql;
  std::function<void(pqxx::connection&)> _on_open;
  std::function<void()> _on_drop;
  pg_error_class _last_error;
  bool _open_failed = false;  // the last failure happened while opening
  bool _opened_before = false;
  bool _down = false;     // in an outage: the observer was told
  bool _stalled = false;  // past the quiet attempts of a transient error: the observer was told
  bool _migrated = false;
  int _round_trips = 0;  // nested round_trip guards: the outermost arms the watchdog
  round_trip_watchdog _watchdog;
  std::unique_ptr<pqxx::connection> _conn;  // last: closed first
};

}  // namespace sluice
