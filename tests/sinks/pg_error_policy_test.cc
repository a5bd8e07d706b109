#include "sinks/postgres/pg_error_policy.h"

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
