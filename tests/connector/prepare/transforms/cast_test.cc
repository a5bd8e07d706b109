// Cast$Value (cast_transform): Connect's casting rules on a change's columns — values and
// column types — with what Connect refuses becoming a dead letter's reason, never a throw.
#include "connector/prepare/transforms/cast.h"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sluice;

namespace {

transform_config spec(std::vector<std::string> entries) {
  transform_config t;
  t.type = "Cast$Value";
  t.spec = std::move(entries);
  return t;
}

change one_column(value v) {
  change c;
  c.key.columns = {"id"};
  c.after.push_back({"id", value::number("1")});
  c.after.push_back({"x", std::move(v)});
  return c;
}

const raw_message no_message{};

// The value of x after casting it to `type`; the reason when the cast is refused.
std::variant<value, std::string> cast(value v, const std::string& type,
                                      const shared_column_types& types = nullptr) {
  cast_transform t("c", spec({"x:" + type}));
  change c = one_column(std::move(v));
  c.types = types;
  auto r = t.apply(c, {no_message, "topic"});
  if (auto* why = std::get_if<std::string>(&r)) return *why;
  REQUIRE(std::get<change_transform::outcome>(r) == change_transform::outcome::keep);
  return c.after[1].v;
}

value cast_ok(value v, const std::string& type) {
  auto r = cast(std::move(v), type);
  if (auto* why = std::get_if<std::string>(&r)) FAIL("refused: " << *why);
  return std::get<value>(r);
}

std::string refused(value v, const std::string& type, const shared_column_types& types = nullptr) {
  auto r = cast(std::move(v), type, types);
  REQUIRE_MESSAGE(std::holds_alternative<std::string>(r), "the cast was not refused");
  return std::get<std::string>(r);
}

shared_column_types typed(type_id x_type) {
  auto t = std::make_shared<column_types>();
  t->columns.push_back({"id", column_type{.id = type_id::int64}, "int8"});
  t->columns.push_back({"x", column_type{.id = x_type}, "SOURCE"});
  return t;
}

}  // namespace

TEST_CASE("a cast to an integer truncates a number's fraction toward zero") {
  CHECK(cast_ok(value::number("1.9"), "int32") == value::number("1"));
  CHECK(cast_ok(value::number("-1.9"), "int32") == value::number("-1"));
  CHECK(cast_ok(value::number("-0.5"), "int64") == value::number("0"));
  CHECK(cast_ok(value::number("1.5e2"), "int16") == value::number("150"));
  CHECK(cast_ok(value::number("42"), "int8") == value::number("42"));
}

TEST_CASE("a number out of the integer type's range is a dead letter, not wrapped") {
  CHECK(refused(value::number("128"), "int8").find("out of range for int8") != std::string::npos);
  CHECK(cast_ok(value::number("-32768"), "int16") == value::number("-32768"));
  CHECK(refused(value::number("40000"), "int16").find("out of range") != std::string::npos);
  CHECK(refused(value::number("2147483648"), "int32").find("out of range") != std::string::npos);
  CHECK(refused(value::number("99999999999999999999"), "int64").find("out of range") !=
        std::string::npos);
  CHECK(refused(value::number("1e300"), "int64").find("out of range") != std::string::npos);
}

TEST_CASE("booleans cast to numbers as 1 and 0, numbers to booleans by their integer part") {
  CHECK(cast_ok(value::boolean(true), "int32") == value::number("1"));
  CHECK(cast_ok(value::boolean(false), "float64") == value::number("0"));
  CHECK(cast_ok(value::number("3"), "boolean") == value::boolean(true));
  CHECK(cast_ok(value::number("-1"), "boolean") == value::boolean(true));
  CHECK(cast_ok(value::number("0"), "boolean") == value::boolean(false));
  // Connect's Number.longValue() != 0: a fraction alone is false.
  CHECK(cast_ok(value::number("0.5"), "boolean") == value::boolean(false));
  CHECK(cast_ok(value::number("1.5"), "boolean") == value::boolean(true));
  CHECK(cast_ok(value::boolean(true), "boolean") == value::boolean(true));
}

TEST_CASE("strings parse as Java parses them") {
  CHECK(cast_ok(value::string("42"), "int32") == value::number("42"));
  CHECK(cast_ok(value::string("+7"), "int64") == value::number("7"));
  CHECK(cast_ok(value::string("-7"), "int8") == value::number("-7"));
  CHECK(refused(value::string("4.2"), "int32").find("'4.2' is not an integer") !=
        std::string::npos);
  CHECK(refused(value::string(" 42"), "int32").find("not an integer") != std::string::npos);
  CHECK(refused(value::string("abc"), "int64").find("not an integer") != std::string::npos);
  CHECK(refused(value::string("300"), "int8").find("out of range for int8") != std::string::npos);
  CHECK(cast_ok(value::string(" 2.5 "), "float64") == value::number("2.5"));
  CHECK(cast_ok(value::string("1e3"), "float32") == value::number("1000"));
  CHECK(cast_ok(value::string("NaN"), "float64") == value::string("NaN"));
  CHECK(cast_ok(value::string("-Infinity"), "float32") == value::string("-Infinity"));
  CHECK(refused(value::string("inf"), "float64").find("not a number") != std::string::npos);
  CHECK(refused(value::string("1e999"), "float64").find("out of range for float64") !=
        std::string::npos);
  // Boolean.parseBoolean: "true" in any case, anything else false.
  CHECK(cast_ok(value::string("TRUE"), "boolean") == value::boolean(true));
  CHECK(cast_ok(value::string("yes"), "boolean") == value::boolean(false));
}

TEST_CASE("numbers round to float32 and float64") {
  CHECK(cast_ok(value::number("3.14159265358979"), "float32") == value::number("3.1415927"));
  CHECK(cast_ok(value::number("0.1"), "float64") == value::number("0.1"));
  CHECK(cast_ok(value::number("12"), "float32") == value::number("12"));
  CHECK(refused(value::number("1e39"), "float32").find("out of range for float32") !=
        std::string::npos);
}

TEST_CASE("anything but JSON casts to a string: numbers and booleans by their text, bytes base64") {
  CHECK(cast_ok(value::number("1.50"), "string") == value::string("1.50"));
  CHECK(cast_ok(value::boolean(false), "string") == value::string("false"));
  CHECK(cast_ok(value::bytes("hi!"), "string") == value::string("aGkh"));
  CHECK(cast_ok(value::string("text"), "STRING") == value::string("text"));
}

TEST_CASE("what Connect's Cast refuses is a dead letter naming the transform and the column") {
  const std::string json = refused(value::json(R"({"a":1})"), "string");
  CHECK(json.starts_with("transforms.c: column x of the table cannot be cast to string"));
  CHECK(json.find("JSON") != std::string::npos);
  CHECK(refused(value::json("[1]"), "int32").find("JSON") != std::string::npos);
  CHECK(refused(value::bytes("\x01"), "int64").find("bytes") != std::string::npos);
  CHECK(refused(value::bytes("\x01"), "boolean").find("bytes") != std::string::npos);
  // A date's text is no integer to parse: the reason points at TimestampConverter.
  CHECK(refused(value::string("2024-01-15"), "int32", typed(type_id::date))
            .find("TimestampConverter") != std::string::npos);
}

TEST_CASE("null stays null and an absent column stays absent") {
  CHECK(cast_ok(value::null(), "int32") == value::null());
  cast_transform t("c", spec({"x:int32"}));
  change c;
  c.key.columns = {"id"};
  c.partial = true;
  c.after.push_back({"id", value::number("1")});
  auto r = t.apply(c, {no_message, "topic"});
  REQUIRE(std::holds_alternative<change_transform::outcome>(r));
  REQUIRE(c.after.size() == 1);  // not added
  c.after.push_back({"x", value::absent()});
  r = t.apply(c, {no_message, "topic"});
  REQUIRE(std::holds_alternative<change_transform::outcome>(r));
  CHECK(c.after[1].v.is_absent());
}

TEST_CASE("a key column is not cast: the merge partitions on the key's canonical bytes") {
  cast_transform t("c", spec({"id:string"}));
  change c = one_column(value::number("1"));
  auto r = t.apply(c, {no_message, "topic"});
  REQUIRE(std::holds_alternative<std::string>(r));
  CHECK(std::get<std::string>(r).find("id is a key column") != std::string::npos);
  CHECK(c.after[0].v == value::number("1"));

  change moved = one_column(value::number("1"));
  moved.key.columns = {"x"};
  moved.old_key = row_key{{"id"}, {value::number("1")}, "1"};
  CHECK(std::holds_alternative<std::string>(t.apply(moved, {no_message, "topic"})));
}

TEST_CASE("the cast columns take their new types, rebuilt once per schema") {
  cast_transform t("c", spec({"x:int8", "y:float32"}));
  auto types = std::make_shared<column_types>();
  types->columns.push_back({"id", column_type{.id = type_id::int64}, "int8"});
  types->columns.push_back({"x", column_type{.id = type_id::string, .length = 10}, "VARCHAR2"});
  types->columns.push_back({"y", column_type{.id = type_id::decimal, .precision = 10}, ""});
  const shared_column_types schema = types;

  change first = one_column(value::string("5"));
  first.types = schema;
  REQUIRE(std::holds_alternative<change_transform::outcome>(t.apply(first, {no_message, "t"})));
  REQUIRE(first.types != schema);
  CHECK(first.types->columns[0].type == column_type{.id = type_id::int64});
  CHECK(first.types->columns[0].source_type == "int8");
  CHECK(first.types->columns[1].type == column_type{.id = type_id::int16});  // no int8 type
  CHECK(first.types->columns[1].source_type.empty());
  CHECK(first.types->columns[2].type == column_type{.id = type_id::float32});
  CHECK(schema->columns[1].type.id == type_id::string);  // the decoder's schema is untouched

  change second = one_column(value::string("6"));
  second.types = schema;
  REQUIRE(std::holds_alternative<change_transform::outcome>(t.apply(second, {no_message, "t"})));
  CHECK(second.types == first.types);  // the same schema: the same rebuilt types

  change untyped = one_column(value::string("7"));
  REQUIRE(std::holds_alternative<change_transform::outcome>(t.apply(untyped, {no_message, "t"})));
  CHECK(untyped.types == nullptr);
  CHECK(untyped.after[1].v == value::number("7"));
}

TEST_CASE("a spec that is not field:type with a Connect type is refused at construction") {
  const auto message = [](std::vector<std::string> entries) {
    try {
      cast_transform t("c", spec(std::move(entries)));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message({"int32"}).starts_with("transforms.c.spec: "));
  CHECK(message({"int32"}).find("whole value") != std::string::npos);
  CHECK(message({}).starts_with("transforms.c.spec: "));
  CHECK(message({"x:int128"}).find("int128") != std::string::npos);
  CHECK(message({"x:bytes"}).starts_with("transforms.c.spec: "));
  CHECK(message({"a:b:c"}).starts_with("transforms.c.spec: "));
  CHECK(message({":int32"}).starts_with("transforms.c.spec: "));
  CHECK(message({"x:int32", "x:string"}).find("twice") != std::string::npos);
  CHECK(message({" x : Int32 ", "y:BOOLEAN"}).empty());  // Connect trims and ignores case
}
