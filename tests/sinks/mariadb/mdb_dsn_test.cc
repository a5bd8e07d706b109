#include <doctest/doctest.h>

#include <stdexcept>

#include "sinks/mariadb/session/mdb_dsn.h"

namespace sluice {
namespace {

TEST_CASE("mariadb dsn: host, port, user, password, database and TLS settings") {
  const mdb::dsn d = mdb::parse_dsn(
      "mariadb://app%40x:p%2Fw@db.example:3307/replica?ssl-mode=VERIFY_IDENTITY&ssl-ca=/ca.crt");
  CHECK(d.host == "db.example");
  CHECK(d.port == 3307);
  CHECK(d.user == "app@x");
  CHECK(d.password == "p/w");
  CHECK(d.database == "replica");
  CHECK(d.tls == mdb::tls_mode::verify_identity);
  CHECK(d.ssl_ca == "/ca.crt");
  CHECK(mdb::shown(d).find("p/w") == std::string::npos);
}

TEST_CASE("mariadb dsn: a raw password with @ and % parses, defaults apply") {
  const mdb::dsn d = mdb::parse_dsn("mysql://u:a@b%zz@127.0.0.1/db");
  CHECK(d.user == "u");
  CHECK(d.password == "a@b%zz");
  CHECK(d.port == 3306);
  CHECK(d.tls == mdb::tls_mode::preferred);
  CHECK(mdb::parse_dsn("mariadb://h/db?ssl-ca=/x").tls == mdb::tls_mode::verify_ca);
}

TEST_CASE("mariadb dsn: what is wrong is named and the password never quoted") {
  CHECK_THROWS_AS(mdb::parse_dsn("postgresql://h/db"), std::invalid_argument);
  CHECK_THROWS_AS(mdb::parse_dsn("mariadb://h:99999/db"), std::invalid_argument);
  CHECK_THROWS_AS(mdb::parse_dsn("mariadb://h/db?ssl-mode=VERIFY_CA"), std::invalid_argument);
  try {
    mdb::parse_dsn("mariadb://u:secret@h/db?colour=blue");
    FAIL("an unknown setting must be refused");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("colour") != std::string::npos);
    CHECK(std::string(e.what()).find("secret") == std::string::npos);
  }
}

}  // namespace
}  // namespace sluice
