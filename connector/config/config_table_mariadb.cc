#include <cstdint>

#include "connector/config/config.h"
#include "connector/config/config_binding.h"
#include "connector/config/config_checks.h"
#include "connector/config/config_table.h"

// The MariaDB connection's keys (mariadb.*): a part of the key table (config_table.cc) kept
// here, beside their postgres.* siblings (config_table_postgres.cc), with the same defaults
// and bounds. MariaDB counts most of these limits in whole seconds: the target rounds up.

namespace sluice {
namespace {

using config_binding::field;

constexpr std::int64_t hour = 3600 * 1000;
constexpr std::int64_t day = 24 * hour;

// clang-format off
const config_key keys[] = {
  {.name = "mariadb.dsn", .secret = true,
   .description = "URI of the replica MariaDB database, "
                  "`mariadb://user:password@host:port/database?ssl-mode=...&ssl-ca=...` "
                  "(ssl-mode DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY; ssl-ca, "
                  "ssl-cert, ssl-key: PEM files). Exactly one of postgres.dsn and mariadb.dsn "
                  "is given: it names the target. Use ${ENV} for the password; it is redacted "
                  "wherever sluice prints the DSN.",
   .check = check_not_empty,
   .binding = field<&config::mariadb, &mariadb_config::dsn>()},
  {.name = "mariadb.state.database", .default_value = "sluice",
   .description = "Database of sluice's own tables (MariaDB's schemas are databases; "
                  "postgres.state.schema's sibling); never a routing target.",
   .check = check_mariadb_identifier,
   .binding = field<&config::mariadb, &mariadb_config::state_database>()},
  {.name = "mariadb.retry.timeout", .type = value_type::duration, .default_value = "0s",
   .min = 0, .max = 365 * day,
   .description = "How long an unreachable MariaDB (refused or lost connections, a server "
                  "restarting: 2002, 2003, 2006, 2013) is retried before the connector goes "
                  "FAILED; 0: forever — the connector waits in DEGRADED and resumes by itself.",
   .binding = field<&config::mariadb, &mariadb_config::retry_timeout>()},
  {.name = "mariadb.connect.timeout", .type = value_type::duration, .default_value = "10s",
   .min = 0, .max = hour,
   .description = "Connector/C MYSQL_OPT_CONNECT_TIMEOUT of every sluice connection (whole "
                  "seconds; 0: none).",
   .binding = field<&config::mariadb, &mariadb_config::connect_timeout>()},
  {.name = "mariadb.statement.timeout", .type = value_type::duration, .default_value = "60s",
   .min = 0, .max = day,
   .description = "max_statement_time of every sluice session (0: none); a statement ended by "
                  "it (1969) is retried like other transient errors: errors.retry.max times "
                  "quietly, then on with the connector DEGRADED until it goes through.",
   .binding = field<&config::mariadb, &mariadb_config::statement_timeout>()},
  {.name = "mariadb.lock.timeout", .type = value_type::duration, .default_value = "30s",
   .min = 0, .max = day,
   .description = "innodb_lock_wait_timeout of every sluice session (whole seconds; 0: none, "
                  "the server's largest value); a row-lock wait ended by it (1205) is retried: "
                  "errors.retry.max times quietly, then on with the connector DEGRADED until it "
                  "goes through.",
   .binding = field<&config::mariadb, &mariadb_config::lock_timeout>()},
  {.name = "mariadb.ddl.lock.timeout", .type = value_type::duration, .default_value = "2s",
   .min = 0, .max = day,
   .description = "lock_wait_timeout (metadata locks) of auto.create and auto.evolve's DDL "
                  "(whole seconds; 0: none, the server's largest value; MariaDB's own default "
                  "is a day): short, so that an ALTER waiting behind a long reader does not "
                  "queue the table's other readers behind it for long; a wait it ends (1205) is "
                  "retried with jitter, errors.retry.max times quietly, then on and on with the "
                  "connector DEGRADED.",
   .binding = field<&config::mariadb, &mariadb_config::ddl_lock_timeout>()},
  {.name = "mariadb.ddl.statement.timeout", .type = value_type::duration, .default_value = "0s",
   .min = 0, .max = day,
   .description = "max_statement_time of auto.create and auto.evolve's DDL (0: none, the "
                  "default: widening a big table's column takes what it takes; the round-trip "
                  "deadline is lifted meanwhile).",
   .binding = field<&config::mariadb, &mariadb_config::ddl_statement_timeout>()},
  {.name = "mariadb.idle.in.transaction.timeout", .type = value_type::duration,
   .default_value = "120s", .min = 0, .max = day,
   .description = "idle_transaction_timeout of every sluice session (whole seconds; 0: none): "
                  "longer than anything sluice does inside a transaction between statements "
                  "(producing dead letters to the dead-letter topic).",
   .binding = field<&config::mariadb, &mariadb_config::idle_in_transaction_timeout>()},
  {.name = "mariadb.round.trip.timeout", .type = value_type::duration, .default_value = "90s",
   .min = 0, .max = day,
   .description = "Client-side deadline on one round trip (Connector/C's read and write "
                  "timeouts): when nothing has arrived from the server for this long, the "
                  "connection is cut and opened again. Keep it above mariadb.statement.timeout "
                  "and mariadb.lock.timeout; 0: none.",
   .binding = field<&config::mariadb, &mariadb_config::round_trip_timeout>()},
};
// clang-format on

}  // namespace

std::span<const config_key> mariadb_config_keys() {
  return keys;
}

}  // namespace sluice
