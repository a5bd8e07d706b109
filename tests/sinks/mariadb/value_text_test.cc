#include "sinks/mariadb/write/value_text.h"

#include <doctest/doctest.h>

#include <string>

namespace sluice {
namespace {

std::string utc(std::string_view text) {
  std::string out;
  return mdb::append_utc_datetime(out, text) ? out : "refused";
}

TEST_CASE("mariadb value text: zoned timestamps become UTC datetime(6) text") {
  CHECK(utc("2026-07-13T04:01:01.123456Z") == "2026-07-13 04:01:01.123456");
  CHECK(utc("2026-07-13T04:01:01.1234567+02:00") == "2026-07-13 02:01:01.123456");
  CHECK(utc("2026-01-01 01:00:00-0130") == "2026-01-01 02:30:00.000000");
  CHECK(utc("2026-01-01T00:30+01") == "2025-12-31 23:30:00.000000");
  CHECK(utc("2024-02-29 12:00:00.5") == "2024-02-29 12:00:00.500000");
  CHECK(utc("1969-12-31T23:59:59Z") == "1969-12-31 23:59:59.000000");
  // Not a date-time: left for the server to refuse.
  CHECK(utc("2026-02-30 00:00:00") == "refused");
  CHECK(utc("2026-07-13") == "refused");
  CHECK(utc("2026-07-13T04:01:01 PST") == "refused");
  CHECK(utc("1700000000000") == "refused");
  std::string out;
  mdb::append_utc_micros(out, 1'700'000'000'123'456);
  CHECK(out == "2023-11-14 22:13:20.123456");
  out.clear();
  mdb::append_utc_micros(out, -1);
  CHECK(out == "1969-12-31 23:59:59.999999");
}

TEST_CASE("mariadb value text: each column type gets the value in its own form") {
  std::string scratch;
  using form = mdb::rendered_value::form;
  CHECK(mdb::target_of("tinyint(1)") == mdb::value_target::number);
  CHECK(mdb::target_of("datetime(6)") == mdb::value_target::datetime);
  CHECK(mdb::target_of("longblob") == mdb::value_target::binary);
  CHECK(mdb::target_of("varchar(10)") == mdb::value_target::text);
  CHECK(mdb::target_of("json") == mdb::value_target::json);
  // (The values outlive what is rendered from them: it may point into them.)
  const value yes = value::boolean(true), no = value::boolean(false);
  const value raw = value::bytes(std::string("\x00\xff", 2)), hi = value::bytes("hi");
  const value x = value::string("x"), big = value::number("123456789012345678901234567890.5");
  auto r = mdb::render_value(yes, mdb::value_target::number, scratch);
  CHECK(r.text == "1");
  r = mdb::render_value(no, mdb::value_target::text, scratch);
  CHECK(r.text == "false");
  r = mdb::render_value(raw, mdb::value_target::binary, scratch);
  CHECK(r.what == form::bytes);
  CHECK(r.text.size() == 2);
  r = mdb::render_value(hi, mdb::value_target::text, scratch);
  CHECK(r.text == "aGk=");
  r = mdb::render_value(x, mdb::value_target::json, scratch);
  CHECK(r.text == "\"x\"");
  r = mdb::render_value(big, mdb::value_target::number, scratch);
  CHECK(r.text == "123456789012345678901234567890.5");
  CHECK(mdb::render_value(value::null(), mdb::value_target::text, scratch).what == form::null);
}

}  // namespace
}  // namespace sluice
