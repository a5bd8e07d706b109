#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/mdb_error_policy.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

// The fixture's TLS login (services/mariadb.sh: mariadb.secure.dsn, a user the server refuses
// without TLS, and the run's CA).
std::string secure_dsn() {
  std::string dsn;
  if (const char* run = std::getenv("SLUICE_RUN_DIR"); run && *run) {
    std::ifstream file(std::string(run) + "/mariadb.secure.dsn");
    std::getline(file, dsn);
  }
  REQUIRE_MESSAGE(!dsn.empty(), "no mariadb.secure.dsn in SLUICE_RUN_DIR");
  return dsn;
}

TEST_CASE("mariadb TLS: verify-identity with the run's CA connects over TLS") {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(secure_dsn());
  REQUIRE(s.target.tls == mdb::tls_mode::verify_identity);
  mdb::connection c(s);
  const auto r = c.query("SHOW SESSION STATUS LIKE 'Ssl_version'");
  REQUIRE(r.size() == 1);
  CHECK(r.at(0, 1).value_or("").starts_with("TLS"));
}

TEST_CASE("mariadb TLS: a certificate the CA did not sign is refused, not used") {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(secure_dsn());
  // A CA that did not sign the server's certificate: the system's bundle.
  s.target.ssl_ca = "/etc/ssl/certs/ca-certificates.crt";
  try {
    mdb::connection c(s);
    FAIL("the server's certificate must not be accepted");
  } catch (const mdb::mdb_error& e) {
    CHECK(mdb::classify_connect_error(e).action == target_error_action::refused);
  }
}

TEST_CASE("mariadb TLS: the TLS user without TLS is refused by the server") {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(secure_dsn());
  s.target.tls = mdb::tls_mode::disabled;
  CHECK_THROWS_AS(mdb::connection{s}, mdb::mdb_error);
}

}  // namespace
}  // namespace sluice
