#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::mdb {

// How the connection's TLS is checked (MySQL's --ssl-mode names). Connector/C verifies the
// server's certificate only when asked (MYSQL_OPT_SSL_VERIFY_SERVER_CERT): verify_ca and
// verify_identity ask it, the latter also matching the host name.
enum class tls_mode : uint8_t { disabled, preferred, required, verify_ca, verify_identity };

// A MariaDB DSN, parsed:
//   mariadb://user:password@host:port/database?ssl-mode=VERIFY_IDENTITY&ssl-ca=/path/ca.crt
// (also mysql://). Query keys: ssl-mode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA,
// VERIFY_IDENTITY; default PREFERRED, or VERIFY_CA once ssl-ca is given), ssl-ca, ssl-cert,
// ssl-key, connect-timeout (seconds). User, password and database are percent-decoded.
// Written by hand: Connector/C takes its settings as separate options and has no URL parser.
struct dsn {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;
  std::string database;
  tls_mode tls = tls_mode::preferred;
  std::string ssl_ca, ssl_cert, ssl_key;
  std::chrono::seconds connect_timeout{0};  // 0: the session's setting
};

// Throws std::invalid_argument naming what is wrong, never quoting the password.
dsn parse_dsn(std::string_view text);

// The DSN with its password replaced by ***, for messages.
std::string shown(const dsn& d);

}  // namespace sluice::mdb
