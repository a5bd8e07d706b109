#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "tests/sinks/pg_test_env.h"  // unique_name

namespace sluice::testing {

// The MariaDB the sink tests use: $SLUICE_TEST_MARIADB_DSN, else the CTest fixture's
// $SLUICE_RUN_DIR/mariadb.dsn (integration/services/mariadb.sh); the test fails at once when
// there is neither.
inline std::string mariadb_dsn() {
  if (const char* dsn = std::getenv("SLUICE_TEST_MARIADB_DSN"); dsn && *dsn) return dsn;
  std::string dsn;
  if (const char* run = std::getenv("SLUICE_RUN_DIR"); run && *run) {
    std::ifstream file(std::string(run) + "/mariadb.dsn");
    std::getline(file, dsn);
  }
  REQUIRE_MESSAGE(!dsn.empty(),
                  "no MariaDB for the integration tests: set SLUICE_TEST_MARIADB_DSN, or "
                  "SLUICE_RUN_DIR with a mariadb.dsn (the CTest fixture `mariadb` provides one)");
  return dsn;
}

// A connection to the test server as its DSN says (database `replica`).
inline mdb::connect_settings mariadb_settings() {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(mariadb_dsn());
  s.program = "sluice:test";
  return s;
}

}  // namespace sluice::testing
