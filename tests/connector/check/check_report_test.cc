#include "connector/check/check_report.h"

#include <doctest/doctest.h>

#include <sstream>

namespace sluice {

using status = check_report::status;

TEST_CASE("check_report: the exit code is the worst finding, config errors first") {
  check_report r;
  CHECK(r.exit_code() == 0);
  r.add("state", "schema sluice", status::warn, "absent");
  CHECK(r.exit_code() == 0);  // a warning does not fail a check
  r.add("topics", "orders", status::fail, "does not exist");
  CHECK(r.exit_code() == 1);
  r.add("postgres", "dsn", status::unreachable, "connection refused");
  CHECK(r.exit_code() == 3);
  r.add("kafka", "kafka.fetch.max.byte", status::config_error, "did you mean");
  CHECK(r.exit_code() == 2);
  CHECK(r.has(status::warn));
  CHECK_FALSE(r.has(status::ok));
}

TEST_CASE("check_report: one aligned line per finding under a header") {
  check_report r;
  r.add("kafka", "brokers b:9092", status::ok, "1 broker(s)");
  r.add("topics", "x", status::fail, "does not exist");
  r.add("privileges", "TEMP", status::ok);
  std::ostringstream out;
  r.print(out);
  CHECK(out.str() ==
        "AREA        CHECK           RESULT  DETAIL\n"
        "kafka       brokers b:9092  ok      1 broker(s)\n"
        "topics      x               FAIL    does not exist\n"
        "privileges  TEMP            ok\n");  // no trailing blanks
}

}  // namespace sluice
