#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

namespace sluice::testing {

// The PostgreSQL the sink tests use: $SLUICE_TEST_PG_DSN, else the CTest fixture's
// $SLUICE_RUN_DIR/postgres.dsn; the test fails at once when there is neither.
inline std::string test_dsn() {
  if (const char* dsn = std::getenv("SLUICE_TEST_PG_DSN"); dsn && *dsn) return dsn;
  std::string dsn;
  if (const char* run = std::getenv("SLUICE_RUN_DIR"); run && *run) {
    std::ifstream file(std::string(run) + "/postgres.dsn");
    std::getline(file, dsn);
  }
  REQUIRE_MESSAGE(!dsn.empty(),
                  "no PostgreSQL for the integration tests: set SLUICE_TEST_PG_DSN, or "
                  "SLUICE_RUN_DIR with a postgres.dsn (the CTest fixture provides one)");
  return dsn;
}

// The DSN with an application_name, so that a test can find its applier's backend.
inline std::string with_application_name(const std::string& dsn, const std::string& name) {
  const bool uri = dsn.rfind("postgres://", 0) == 0 || dsn.rfind("postgresql://", 0) == 0;
  if (!uri) return dsn + " application_name=" + name;
  return dsn + (dsn.find('?') == std::string::npos ? "?" : "&") + "application_name=" + name;
}

// A name unique to this process and call, so tests sharing a database never collide.
inline std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

}  // namespace sluice::testing
