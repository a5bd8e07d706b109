// TimestampConverter$Value (timestamp_converter): a column read as an instant — a unix count,
// a string in `format`, or the decoders' date/time text on a typed column — and written as
// the text or number the PostgreSQL sink writes into the column type it then carries.
#include "connector/prepare/transforms/timestamp_converter.h"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>

using namespace sluice;

namespace {

transform_config converter(const std::string& target, const std::string& format = "",
                           const std::string& precision = "") {
  transform_config t;
  t.type = "TimestampConverter$Value";
  t.field = "at";
  t.target_type = target;
  t.format = format;
  t.unix_precision = precision;
  return t;
}

const raw_message no_message{};

shared_column_types typed(column_type at_type) {
  auto t = std::make_shared<column_types>();
  t->columns.push_back({"id", column_type{.id = type_id::int64}, ""});
  t->columns.push_back({"at", at_type, "SOURCE"});
  return t;
}

// The column `at` after converting v; the reason when the change is refused.
std::variant<value, std::string> convert(const transform_config& config, value v,
                                         const shared_column_types& types = nullptr) {
  timestamp_converter t("ts", config);
  change c;
  c.key.columns = {"id"};
  c.after.push_back({"id", value::number("1")});
  c.after.push_back({"at", std::move(v)});
  c.types = types;
  auto r = t.apply(c, {no_message, "topic"});
  if (auto* why = std::get_if<std::string>(&r)) return *why;
  return c.after[1].v;
}

value converted(const transform_config& config, value v,
                const shared_column_types& types = nullptr) {
  auto r = convert(config, std::move(v), types);
  if (auto* why = std::get_if<std::string>(&r)) FAIL("refused: " << *why);
  return std::get<value>(r);
}

std::string refused(const transform_config& config, value v,
                    const shared_column_types& types = nullptr) {
  auto r = convert(config, std::move(v), types);
  REQUIRE_MESSAGE(std::holds_alternative<std::string>(r), "not refused");
  return std::get<std::string>(r);
}

std::string construction_error(const transform_config& config) {
  try {
    timestamp_converter t("ts", config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("a unix count becomes a Timestamp, Date, Time or string in UTC") {
  // 2024-03-05T07:08:09.045Z
  const value ms = value::number("1709622489045");
  CHECK(converted(converter("Timestamp"), ms) == value::string("2024-03-05T07:08:09.045Z"));
  CHECK(converted(converter("Date"), ms) == value::string("2024-03-05"));
  CHECK(converted(converter("Time"), ms) == value::string("07:08:09.045"));
  CHECK(converted(converter("string", "dd/MM/yyyy HH:mm"), ms) ==
        value::string("05/03/2024 07:08"));
  CHECK(converted(converter("Timestamp", "", "seconds"), value::number("0")) ==
        value::string("1970-01-01T00:00:00Z"));
  CHECK(converted(converter("Timestamp", "", "microseconds"), value::number("-1")) ==
        value::string("1969-12-31T23:59:59.999999Z"));
  // Nanoseconds are truncated to microseconds (PostgreSQL's resolution).
  CHECK(converted(converter("Timestamp", "", "nanoseconds"), value::number("1500001")) ==
        value::string("1970-01-01T00:00:00.0015Z"));
}

TEST_CASE("an instant becomes a unix count at unix.precision, truncated toward zero") {
  const value text = value::string("2024-03-05T07:08:09.045678");
  const auto types = typed({.id = type_id::timestamp, .precision = 6});
  CHECK(converted(converter("unix"), text, types) == value::number("1709622489045"));
  CHECK(converted(converter("unix", "", "seconds"), text, types) == value::number("1709622489"));
  CHECK(converted(converter("unix", "", "microseconds"), text, types) ==
        value::number("1709622489045678"));
  CHECK(converted(converter("unix", "", "nanoseconds"), text, types) ==
        value::number("1709622489045678000"));
  CHECK(converted(converter("unix", "", "milliseconds"), value::number("-1500")) ==
        value::number("-1500"));
  CHECK(converted(converter("unix", "", "seconds"), value::string("1969-12-31T23:59:58.5"),
                  types) == value::number("-1"));  // -1.5 s, truncated toward zero
}

TEST_CASE("a string is parsed with the format, and formatted with it") {
  const auto config = converter("Timestamp", "yyyy-MM-dd HH:mm:ss Z");
  CHECK(converted(config, value::string("2024-03-05 09:08:09 +0200")) ==
        value::string("2024-03-05T07:08:09Z"));
  CHECK(converted(converter("string", "yyyyMMdd"), value::string("20240305")) ==
        value::string("20240305"));
  CHECK(converted(converter("unix", "dd.MM.yyyy"), value::string("02.01.1970")) ==
        value::number("86400000"));
}

TEST_CASE("the decoders' date and time text is read by its column type, not the format") {
  const auto config = converter("string", "yyyy/MM/dd HH:mm:ss.SSS");
  CHECK(converted(config, value::string("2024-03-05"), typed({.id = type_id::date})) ==
        value::string("2024/03/05 00:00:00.000"));
  CHECK(converted(config, value::string("07:08:09.5"), typed({.id = type_id::time})) ==
        value::string("1970/01/01 07:08:09.500"));
  CHECK(converted(config, value::string("2024-03-05T07:08:09.045"),
                  typed({.id = type_id::timestamp})) == value::string("2024/03/05 07:08:09.045"));
  CHECK(converted(config, value::string("2024-03-05 09:08:09+02:00"),
                  typed({.id = type_id::timestamptz})) == value::string("2024/03/05 07:08:09.000"));
  CHECK(converted(config, value::string("2024-03-05T07:08:09.123456Z"),
                  typed({.id = type_id::timestamptz})) == value::string("2024/03/05 07:08:09.123"));
  // A Date keeps the day, a Time the time of day.
  CHECK(converted(converter("Date"), value::string("2024-03-05T23:59:59Z"),
                  typed({.id = type_id::timestamptz})) == value::string("2024-03-05"));
  CHECK(converted(converter("Time"), value::string("2024-03-05T23:59:59.25Z"),
                  typed({.id = type_id::timestamptz})) == value::string("23:59:59.25"));
  CHECK(converted(converter("Timestamp"), value::string("2024-03-05"),
                  typed({.id = type_id::date})) == value::string("2024-03-05T00:00:00Z"));
}

TEST_CASE("the converted column takes its new type, rebuilt once per schema") {
  const auto check_type = [](const transform_config& config, column_type from, column_type to) {
    timestamp_converter t("ts", config);
    const shared_column_types schema = typed(from);
    for (int i = 0; i < 2; ++i) {
      change c;
      c.key.columns = {"id"};
      c.after.push_back({"id", value::number("1")});
      c.after.push_back({"at", value::number("0")});
      c.types = schema;
      REQUIRE(std::holds_alternative<change_transform::outcome>(t.apply(c, {no_message, "t"})));
      CHECK(c.types->columns[1].type == to);
      CHECK(c.types->columns[1].source_type.empty());
      CHECK(c.types->columns[0].type == schema->columns[0].type);
      static shared_column_types first;
      if (i == 0) first = c.types;
      CHECK(c.types == first);  // the same schema: the same rebuilt types
    }
    CHECK(schema->columns[1].type == from);  // the decoder's schema is untouched
  };
  const column_type int64{.id = type_id::int64};
  check_type(converter("Timestamp"), int64, {.id = type_id::timestamp});
  check_type(converter("Date"), int64, {.id = type_id::date});
  check_type(converter("Time"), int64, {.id = type_id::time});
  check_type(converter("string", "yyyy"), int64, {.id = type_id::string});
  check_type(converter("Timestamp"), {.id = type_id::timestamptz, .precision = 3},
             {.id = type_id::timestamp, .precision = 3});
  check_type(converter("unix"), {.id = type_id::timestamp, .precision = 6}, int64);
}

TEST_CASE("null stays null, an absent column stays absent") {
  CHECK(converted(converter("Timestamp"), value::null()) == value::null());
  CHECK(converted(converter("Timestamp"), value::absent()) == value::absent());
  timestamp_converter t("ts", converter("Timestamp"));
  change c;
  c.key.columns = {"id"};
  c.partial = true;
  c.after.push_back({"id", value::number("1")});
  REQUIRE(std::holds_alternative<change_transform::outcome>(t.apply(c, {no_message, "t"})));
  CHECK(c.after.size() == 1);
}

TEST_CASE("a value that is no timestamp is a dead letter naming the column and the transform") {
  const std::string fraction = refused(converter("Timestamp"), value::number("1.5"));
  CHECK(fraction.starts_with("transforms.ts: column at of the table holds '1.5'"));
  CHECK(fraction.find("not an integer") != std::string::npos);
  CHECK(refused(converter("Timestamp"), value::boolean(true)).find("a boolean") !=
        std::string::npos);
  CHECK(refused(converter("Timestamp"), value::json("{}")).find("JSON") != std::string::npos);
  CHECK(refused(converter("Timestamp"), value::bytes("x")).find("bytes") != std::string::npos);
  CHECK(refused(converter("Timestamp"), value::string("2024-03-05")).find("needs a format") !=
        std::string::npos);
  const std::string mismatch =
      refused(converter("Timestamp", "yyyy-MM-dd"), value::string("05/03/2024"));
  CHECK(mismatch.find("does not match the format 'yyyy-MM-dd'") != std::string::npos);
  CHECK(refused(converter("Date"), value::string("2024-02-30"), typed({.id = type_id::date}))
            .find("not a date") != std::string::npos);
  CHECK(refused(converter("Date"), value::string("0044-03-15 BC"), typed({.id = type_id::date}))
            .find("years 1-9999") != std::string::npos);
  CHECK(refused(converter("Timestamp", "", "seconds"), value::number("300000000000"))
            .find("outside years 1-9999") != std::string::npos);
  CHECK(refused(converter("Timestamp"), value::number("99999999999999999999"))
            .find("not an integer") != std::string::npos);
}

TEST_CASE("a key column is not converted: the merge partitions on the key's canonical bytes") {
  timestamp_converter t("ts", converter("Timestamp"));
  change c;
  c.key.columns = {"at"};
  c.after.push_back({"at", value::number("0")});
  auto r = t.apply(c, {no_message, "t"});
  REQUIRE(std::holds_alternative<std::string>(r));
  CHECK(std::get<std::string>(r).find("at is a key column") != std::string::npos);
  CHECK(c.after[0].v == value::number("0"));
}

TEST_CASE("settings Connect refuses, or sluice cannot honour, are refused at construction") {
  auto whole = converter("Timestamp");
  whole.field.clear();
  CHECK(construction_error(whole).starts_with("transforms.ts.field: "));
  CHECK(construction_error(converter("timestamp")).starts_with("transforms.ts.target_type: "));
  CHECK(construction_error(converter("string")).starts_with("transforms.ts.format: "));
  CHECK(construction_error(converter("unix", "", "minutes"))
            .starts_with("transforms.ts.unix_precision: "));
  const std::string names = construction_error(converter("string", "dd MMM yyyy"));
  CHECK(names.starts_with("transforms.ts.format: "));
  CHECK(names.find("MMM (month name)") != std::string::npos);
  CHECK(construction_error(converter("Date", "yyyy-MM-dd", "seconds")).empty());
}
