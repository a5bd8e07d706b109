#pragma once

#include <chrono>
#include <string>

namespace sluice {

// How a target session connects and which server-side limits it sets (SPEC §5: every
// connection has connect_timeout, TCP keepalives, statement_timeout, lock_timeout and
// idle_in_transaction_session_timeout). Filled from `postgres.*` in the configuration; a
// setting the DSN itself names wins over these defaults. 0 disables a limit.
struct session_options {
  std::string dsn;
  // application_name when the DSN sets none: "sluice" plus the session's role, so that
  // pg_stat_activity tells lanes, the partition owner and the janitor apart.
  std::string application_name = "sluice";
  std::chrono::milliseconds connect_timeout{10'000};
  // TCP keepalives: a peer that vanished (host down, link cut) is noticed while waiting for
  // an answer after idle + interval × count, and tcp_user_timeout bounds how long sent data
  // may stay unacknowledged.
  std::chrono::milliseconds keepalives_idle{10'000};
  std::chrono::milliseconds keepalives_interval{5'000};
  int keepalives_count = 3;
  std::chrono::milliseconds tcp_user_timeout{30'000};
  std::chrono::milliseconds statement_timeout{60'000};
  std::chrono::milliseconds lock_timeout{30'000};
  // Longer than anything sluice does inside an open transaction between two statements (the
  // dead-letter topic send is the longest).
  std::chrono::milliseconds idle_in_transaction_timeout{120'000};
  // Client-side deadline on one round trip: a link that stops forwarding without closing
  // (a middlebox keeping TCP alive) answers keepalives and is only noticed by this. Longer
  // than statement_timeout, after which the server answers anyway.
  std::chrono::milliseconds round_trip_timeout{90'000};
  // sluice's state schema, created or migrated when the session first connects (when
  // migrate is set).
  std::string state_schema = "sluice";
  bool migrate = true;
};

}  // namespace sluice
