#include "sinks/postgres/session/pg_error_policy.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include <pqxx/except>

namespace sluice {
namespace {

TEST_CASE("transient PostgreSQL errors are retried") {
  CHECK(classify_sqlstate("40001") == pg_error_action::retry);  // serialization_failure
  CHECK(classify_sqlstate("40P01") == pg_error_action::retry);  // deadlock_detected
  CHECK(classify_sqlstate("25006") == pg_error_action::retry);  // read_only_sql_transaction
  CHECK(classify_pg_error(pqxx::serialization_failure("could not serialize")).action ==
        pg_error_action::retry);
  const pg_error_class deadlock = classify_pg_error(pqxx::deadlock_detected("deadlock"));
  CHECK(deadlock.action == pg_error_action::retry);
  CHECK(deadlock.sqlstate == "40P01");
}

TEST_CASE("a lost connection or a restarting server means reconnect and retry") {
  CHECK(classify_pg_error(pqxx::broken_connection("server closed the connection")).action ==
        pg_error_action::reconnect);
  CHECK(classify_sqlstate("08006") == pg_error_action::reconnect);
  CHECK(classify_sqlstate("57P01") == pg_error_action::reconnect);  // admin_shutdown
  CHECK(classify_pg_error(pqxx::sql_error("terminating connection", "q", "57P01")).action ==
        pg_error_action::reconnect);
}

TEST_CASE("a commit whose outcome is unknown is resolved, not retried blindly") {
  // in_doubt_error is a pqxx::failure like broken_connection: the most derived class wins.
  CHECK(classify_pg_error(pqxx::in_doubt_error("connection lost during commit")).action ==
        pg_error_action::in_doubt);
}

TEST_CASE("data and integrity errors reject the change, for the dead letters") {
  const pg_error_class bad_number = classify_pg_error(pqxx::data_exception(
      "ERROR:  invalid input syntax for type numeric: \"x\"\nLINE 1: ...", "INSERT ...", "22P02"));
  CHECK(bad_number.action == pg_error_action::reject);
  CHECK(bad_number.sqlstate == "22P02");
  CHECK(bad_number.message == "invalid input syntax for type numeric: \"x\"");
  CHECK(classify_pg_error(pqxx::unique_violation("dup", "q", "23505")).action ==
        pg_error_action::reject);
  CHECK(classify_pg_error(pqxx::not_null_violation("null", "q", "23502")).action ==
        pg_error_action::reject);
  CHECK(classify_sqlstate("22021") == pg_error_action::reject);  // invalid UTF-8
  // Two keys one statement writes to the same row ("1" and 1 in a text key column).
  CHECK(classify_sqlstate("21000") == pg_error_action::reject);
}

TEST_CASE("anything else is fatal") {
  CHECK(classify_sqlstate("42P01") == pg_error_action::fatal);  // undefined_table
  CHECK(classify_sqlstate("42501") == pg_error_action::fatal);  // insufficient_privilege
  CHECK(classify_sqlstate("") == pg_error_action::fatal);
  CHECK(classify_pg_error(pqxx::syntax_error("syntax", "q", "42601")).action ==
        pg_error_action::fatal);
  CHECK(classify_pg_error(pqxx::usage_error("misuse")).action == pg_error_action::fatal);
  CHECK(classify_pg_error(std::runtime_error("not PostgreSQL")).action == pg_error_action::fatal);
  CHECK(classify_pg_error(std::make_exception_ptr(42)).action == pg_error_action::fatal);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST_CASE("timeouts sluice sets are statement-level transient errors") {
  CHECK(classify_sqlstate("55P03") == pg_error_action::retry);  // lock_timeout
  CHECK(classify_sqlstate("57014") == pg_error_action::retry);  // statement_timeout
}

TEST_CASE("a server out of disk or memory is waited out, not fatal") {
  CHECK(classify_sqlstate("53100") == pg_error_action::retry);  // disk_full
  CHECK(classify_sqlstate("53200") == pg_error_action::retry);  // out_of_memory
  CHECK(classify_sqlstate("53300") == pg_error_action::retry);  // too_many_connections
  CHECK(classify_sqlstate("53400") == pg_error_action::fatal);  // configuration_limit_exceeded
}

TEST_CASE("a server that refuses the login is for a person to fix, not waited out") {
  CHECK(classify_sqlstate("28P01") == pg_error_action::refused);  // invalid_password
  CHECK(classify_sqlstate("28000") == pg_error_action::refused);  // invalid authorization
  CHECK(classify_sqlstate("3D000") == pg_error_action::refused);  // invalid_catalog_name

  // libpq reports a failed login without a SQLSTATE: the server's words decide.
  const pqxx::broken_connection password(
      "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password "
      "authentication failed for user \"sluice\"\n");
  const pg_error_class c = classify_connect_error(password);
  CHECK(c.action == pg_error_action::refused);
  CHECK(c.message == "password authentication failed for user \"sluice\"");
  CHECK(classify_connect_error(pqxx::broken_connection("connection to server at \"h\", port 1 "
                                                       "failed: FATAL:  database \"x\" does not "
                                                       "exist"))
            .action == pg_error_action::refused);
  CHECK(classify_connect_error(pqxx::broken_connection("FATAL:  role \"nosuch\" does not exist"))
            .action == pg_error_action::refused);
  CHECK(classify_connect_error(
            pqxx::broken_connection("connection to server at \"h\", port 1 failed: FATAL:  no "
                                    "pg_hba.conf entry for host \"10.1.1.1\", user \"u\""))
            .action == pg_error_action::refused);
  CHECK(classify_connect_error(pqxx::broken_connection("connection to server at \"h\", port 1 "
                                                       "failed: fe_sendauth: no password supplied"))
            .action == pg_error_action::refused);
}

TEST_CASE("a server certificate TLS does not accept is refused like a login, saying why") {
  // libpq's words (PostgreSQL 15) for sslmode=verify-full against the wrong CA, another host
  // name, a missing sslrootcert, and a server without TLS.
  const pqxx::broken_connection wrong_ca(
      "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: certificate verify "
      "failed\n");
  const pg_error_class c = classify_connect_error(wrong_ca);
  CHECK(c.action == pg_error_action::refused);
  CHECK(c.message ==
        "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: certificate verify "
        "failed");
  CHECK(tls_refused(c.message));
  CHECK_FALSE(login_refused(c.message));
  for (const char* refused : {
           "connection to server at \"127.0.0.1\", port 5432 failed: server certificate for "
           "\"db.example\" does not match host name \"127.0.0.1\"",
           "connection to server at \"127.0.0.1\", port 5432 failed: root certificate file "
           "\"/nonexistent/ca.crt\" does not exist\nEither provide the file or change sslmode to "
           "disable server certificate verification.",
           "connection to server at \"127.0.0.1\", port 5432 failed: could not read root "
           "certificate file \"/tmp/x\": no certificate or crl found",
           "connection to server at \"127.0.0.1\", port 5432 failed: server does not support "
           "SSL, but SSL was required",
       }) {
    CHECK_MESSAGE(
        classify_connect_error(pqxx::broken_connection(refused)).action == pg_error_action::refused,
        refused);
  }
  // A handshake cut short by a server going away is an outage, waited out.
  for (const char* transient : {
           "connection to server at \"127.0.0.1\", port 5432 failed: SSL SYSCALL error: EOF "
           "detected",
           "connection to server at \"127.0.0.1\", port 5432 failed: SSL connection has been "
           "closed unexpectedly",
       }) {
    CHECK_MESSAGE(classify_connect_error(pqxx::broken_connection(transient)).action ==
                      pg_error_action::reconnect,
                  transient);
  }
}

TEST_CASE("a server restarting, full or unreachable at connect time is waited out") {
  for (const char* transient : {
           "connection to server at \"127.0.0.1\", port 5432 failed: Connection refused\n\tIs "
           "the server running on that host and accepting TCP/IP connections?",
           "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  the database "
           "system is starting up",
           "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  the database "
           "system is shutting down",
           "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  sorry, too many "
           "clients already",
           "connection to server at \"10.0.0.1\", port 5432 failed: timeout expired",
           "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  too many "
           "connections for role \"sluice\"",
           "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  canceling "
           "authentication due to timeout",
       }) {
    CHECK_MESSAGE(classify_connect_error(pqxx::broken_connection(transient)).action ==
                      pg_error_action::reconnect,
                  transient);
  }
  // A lost connection in the middle of a session is never a refused login, whatever it says.
  CHECK(classify_pg_error(pqxx::broken_connection("FATAL:  terminating connection due to "
                                                  "administrator command"))
            .action == pg_error_action::reconnect);
}

}  // namespace
}  // namespace sluice
