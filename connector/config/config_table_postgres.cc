#include <cstdint>

#include "connector/config/config.h"
#include "connector/config/config_binding.h"
#include "connector/config/config_checks.h"
#include "connector/config/config_table.h"

// The PostgreSQL connection's keys (postgres.*): a part of the key table (config_table.cc)
// kept here.

namespace sluice {
namespace {

using config_binding::field;

constexpr std::int64_t second = 1000;
constexpr std::int64_t hour = 3600 * second;
constexpr std::int64_t day = 24 * hour;

// clang-format off
const config_key keys[] = {
  {.name = "postgres.dsn", .secret = true,
   .description = "libpq connection string (URI or key=value) of the replica database. "
                  "Exactly one of postgres.dsn and mariadb.dsn is given: it names the target. "
                  "Use ${ENV} for the password; it is redacted wherever sluice prints the DSN.",
   .check = check_not_empty,
   .binding = field<&config::postgres, &postgres_config::dsn>()},
  {.name = "postgres.state.schema", .default_value = "sluice",
   .description = "Schema of sluice's own tables (offsets, dead_letters, tombstones, "
                  "pending_fragments, catalog, ddl_history, table_progress, registry_schemas).",
   .check = check_identifier,
   .binding = field<&config::postgres, &postgres_config::state_schema>()},
  {.name = "postgres.retry.timeout", .type = value_type::duration, .default_value = "0s",
   .min = 0, .max = 365 * day,
   .description = "How long an unreachable PostgreSQL (refused or lost connections, a server "
                  "restarting: 08xxx, 57P01-57P03) is retried before the connector goes FAILED; "
                  "0: forever — the connector waits in DEGRADED and resumes by itself.",
   .binding = field<&config::postgres, &postgres_config::retry_timeout>()},
  {.name = "postgres.connect.timeout", .type = value_type::duration, .default_value = "10s",
   .min = 0, .max = hour,
   .description = "libpq connect_timeout of every sluice connection (whole seconds, at least "
                  "2; 0: none). A connect_timeout in the DSN wins.",
   .binding = field<&config::postgres, &postgres_config::connect_timeout>()},
  {.name = "postgres.keepalives.idle", .type = value_type::duration, .default_value = "10s",
   .min = 0, .max = hour,
   .description = "TCP keepalives: idle time before the first probe (0: keepalives as the "
                  "system sets them). Keepalive settings in the DSN win.",
   .binding = field<&config::postgres, &postgres_config::keepalives_idle>()},
  {.name = "postgres.keepalives.interval", .type = value_type::duration, .default_value = "5s",
   .min = second, .max = hour,
   .description = "TCP keepalives: time between unanswered probes.",
   .binding = field<&config::postgres, &postgres_config::keepalives_interval>()},
  {.name = "postgres.keepalives.count", .type = value_type::integer, .default_value = "3",
   .min = 1, .max = 100,
   .description = "TCP keepalives: unanswered probes before the connection counts as lost.",
   .binding = field<&config::postgres, &postgres_config::keepalives_count>()},
  {.name = "postgres.tcp.user.timeout", .type = value_type::duration, .default_value = "30s",
   .min = 0, .max = hour,
   .description = "libpq tcp_user_timeout: how long sent data may stay unacknowledged before "
                  "the connection counts as lost (0: the system's).",
   .binding = field<&config::postgres, &postgres_config::tcp_user_timeout>()},
  {.name = "postgres.statement.timeout", .type = value_type::duration, .default_value = "60s",
   .min = 0, .max = day,
   .description = "statement_timeout of every sluice session (0: none); a statement cancelled "
                  "by it (57014) is retried like other transient errors: errors.retry.max times "
                  "quietly, then on with the connector DEGRADED until it goes through.",
   .binding = field<&config::postgres, &postgres_config::statement_timeout>()},
  {.name = "postgres.lock.timeout", .type = value_type::duration, .default_value = "30s",
   .min = 0, .max = day,
   .description = "lock_timeout of every sluice session (0: none); a lock wait ended by it "
                  "(55P03) is retried: errors.retry.max times quietly, then on with the connector "
                  "DEGRADED until it goes through.",
   .binding = field<&config::postgres, &postgres_config::lock_timeout>()},
  {.name = "postgres.ddl.lock.timeout", .type = value_type::duration, .default_value = "2s",
   .min = 0, .max = day,
   .description = "lock_timeout of auto.create and auto.evolve's DDL (0: none): short, so that "
                  "an ALTER waiting behind a long reader does not queue the table's other "
                  "readers behind it for long; a wait it ends (55P03) is retried with jitter, "
                  "errors.retry.max times quietly, then on and on with the connector DEGRADED "
                  "and the backends holding the table named in /status.",
   .binding = field<&config::postgres, &postgres_config::ddl_lock_timeout>()},
  {.name = "postgres.ddl.statement.timeout", .type = value_type::duration, .default_value = "0s",
   .min = 0, .max = day,
   .description = "statement_timeout of auto.create and auto.evolve's DDL (0: none, the "
                  "default: widening a big table's column takes what it takes; the round-trip "
                  "deadline is lifted meanwhile). A DDL it cancels (57014) is retried like "
                  "other transient errors.",
   .binding = field<&config::postgres, &postgres_config::ddl_statement_timeout>()},
  {.name = "postgres.idle.in.transaction.timeout", .type = value_type::duration,
   .default_value = "120s", .min = 0, .max = day,
   .description = "idle_in_transaction_session_timeout of every sluice session (0: none): "
                  "longer than anything sluice does inside a transaction between statements "
                  "(producing dead letters to the dead-letter topic).",
   .binding = field<&config::postgres, &postgres_config::idle_in_transaction_timeout>()},
  {.name = "postgres.round.trip.timeout", .type = value_type::duration, .default_value = "90s",
   .min = 0, .max = day,
   .description = "Client-side deadline on one round trip: when nothing has arrived from the "
                  "server for this long, the connection is cut and opened again (a link that "
                  "stops forwarding without closing). Keep it above postgres.statement.timeout "
                  "and postgres.lock.timeout; 0: none.",
   .binding = field<&config::postgres, &postgres_config::round_trip_timeout>()},
};
// clang-format on

}  // namespace

std::span<const config_key> postgres_config_keys() {
  return keys;
}

}  // namespace sluice
