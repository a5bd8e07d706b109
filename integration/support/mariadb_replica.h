#pragma once

// What end-to-end tests ask of a MariaDB replica and of sluice's state there (the `sluice`
// state database): the fixture's DSN (services/mariadb.sh), queries as text, and a config
// that writes to it. The PostgreSQL counterparts: services.h, replica_checks.h.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sluice::testing {

// $SLUICE_RUN_DIR/mariadb.dsn (the `mariadb` CTest fixture); the test fails at once without.
std::string mariadb_dsn();

using mariadb_row = std::vector<std::optional<std::string>>;
// Runs one statement on the fixture's server (a new connection each time) and returns the rows
// as text (nullopt for NULL).
std::vector<mariadb_row> mariadb_query(const std::string& sql);

// basic_config() (sluice_process.h) writing to the fixture's MariaDB instead of PostgreSQL.
std::string mariadb_config(const std::string& name, const std::string& topic,
                           const std::string& format = "datastream", const std::string& extra = "",
                           int batch_size = 500);

// The sum of the connector's next offsets in `sluice`.offsets; 0 before the table exists.
int64_t mariadb_committed(const std::string& connector);
// Waits until the connector committed `total` messages.
bool mariadb_caught_up(const std::string& connector, int64_t total,
                       std::chrono::seconds timeout = std::chrono::seconds(60));
// Rows in `sluice`.dead_letters for a topic, and their reasons one per line.
int64_t mariadb_dead_letter_count(const std::string& topic);
std::string mariadb_dead_letter_reasons(const std::string& topic);

// The columns of database.table, sluice's own (_sluice_*) aside: column → its COLUMN_TYPE in
// information_schema.columns, "json" for MariaDB's json (a longtext with a json_valid check),
// and " COLLATE <collation>" after a text type ("varchar(20) COLLATE utf8mb4_bin").
std::map<std::string, std::string> mariadb_column_types(const std::string& database,
                                                        const std::string& table);

}  // namespace sluice::testing
