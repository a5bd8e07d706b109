#include "sinks/mariadb/plan/value_fit.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "sinks/plan/table_planner.h"

namespace sluice {
namespace {

using mdb::table_shape;

std::string times(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

// One table `shop.orders` (key `id`, column `v`) whose target types the test chooses: the
// changes are merged and planned as the applier does, then checked against the shape.
struct fit_world {
  table_catalog catalog;
  merge_engine merger;
  apply_options options;
  table_entry* orders = catalog.intern(table_name{"", "shop", "orders"});
  int64_t next_csn = 1;

  fit_world() { options.connector = "test"; }

  change upsert(const value& id, const value& v, const column_type& stream = {}) {
    change c;
    c.table = orders;
    auto key = make_row_key({"id"}, {id});
    REQUIRE(key.ok());
    c.key = key.value();
    c.after = {{"id", id}, {"v", v}};
    if (stream.known()) {
      auto types = std::make_shared<column_types>();
      types->columns.push_back({"v", stream, ""});
      c.types = types;
    }
    c.seq = csn_builder().add(next_csn++).build();
    return c;
  }

  static table_shape shape(const std::string& key_type, const std::string& type) {
    table_shape s;
    s.exists = true;
    s.columns = {{"id", key_type, "", false}, {"v", type, "", true}};
    s.primary_key = {"id"};
    return s;
  }

  // The dead letters of these changes against the shape; `rejected` gets the plan's marks.
  std::vector<dead_letter> check(std::vector<change> changes, const table_shape& s,
                                 std::vector<uint8_t>* rejected = nullptr) {
    table_planner planner(options);
    std::vector<dead_letter> rejects;
    const merged_batch batch = merger.merge(std::move(changes));
    std::vector<table_plan> plans = planner.plan(batch, rejects);
    REQUIRE(rejects.empty());
    REQUIRE(plans.size() == 1);
    mdb::reject_unfit_values(plans[0], s, rejects);
    size_t marked = 0;
    for (uint8_t r : plans[0].rejected)
      marked += r;
    CHECK(marked == rejects.size());
    if (rejected) *rejected = plans[0].rejected;
    return rejects;
  }

  // Why column `v` of type `type` refuses v (nothing: it holds it).
  std::optional<std::string> refusal(const std::string& type, const value& v,
                                     const column_type& stream = {}) {
    const auto letters = check({upsert(value::number("1"), v, stream)}, shape("int(11)", type));
    REQUIRE(letters.size() <= 1);
    if (letters.empty()) return std::nullopt;
    CHECK(letters[0].kind == dead_letter_kind::rejected);
    CHECK(letters[0].target_schema == "shop");
    CHECK(letters[0].target_table == "orders");
    return letters[0].reason;
  }
  bool holds(const std::string& type, const value& v) { return !refusal(type, v); }
};

bool has(const std::optional<std::string>& reason, std::string_view part) {
  return reason && reason->find(part) != std::string::npos;
}

const std::string e_acute = "\xC3\xA9";         // 2 bytes, one character
const std::string smiley = "\xF0\x9F\x98\x80";  // 4 bytes, one character

TEST_CASE("mariadb value fit: varchar(n) and char(n) count characters, not bytes") {
  fit_world w;
  CHECK(w.holds("varchar(40)", value::string(times(e_acute, 40))));
  const auto why = w.refusal("varchar(40)", value::string(times(e_acute, 41)));
  CHECK(has(why, "41 characters, the type holds 40"));
  CHECK(w.holds("varchar(3)", value::string(times(smiley, 3))));
  CHECK_FALSE(w.holds("varchar(3)", value::string(times(smiley, 4))));
  CHECK(w.holds("char(2)", value::string("ab")));
  CHECK_FALSE(w.holds("char(2)", value::string("abc")));
  // MariaDB cuts trailing spaces beyond n with a mere note: `a  ` would become `a `.
  CHECK(has(w.refusal("varchar(3)", value::string("ab  ")), "4 characters"));
  // Numbers and booleans as their text, bytes as their base64 text.
  CHECK(w.holds("varchar(4)", value::number("1234")));
  CHECK_FALSE(w.holds("varchar(4)", value::number("12345")));
  CHECK_FALSE(w.holds("varchar(4)", value::boolean(false)));
  CHECK(w.holds("varchar(4)", value::bytes("abc")));  // "YWJj"
  CHECK(has(w.refusal("varchar(4)", value::bytes("abcd")), "8 characters of base64"));
}

TEST_CASE("mariadb value fit: varbinary(n) and binary(n) count bytes") {
  fit_world w;
  CHECK(w.holds("varbinary(16)", value::bytes(std::string(16, '\0'))));
  CHECK(has(w.refusal("varbinary(16)", value::bytes(std::string(17, '\xff'))),
            "17 bytes, the type holds 16"));
  // Text goes as its UTF-8 bytes (no base64 in a binary column).
  CHECK(w.holds("varbinary(16)", value::string(times(e_acute, 8))));
  CHECK_FALSE(w.holds("varbinary(16)", value::string(times(e_acute, 9))));
  CHECK(w.holds("binary(4)", value::bytes("abcd")));
  CHECK_FALSE(w.holds("binary(4)", value::bytes("abcde")));
}

TEST_CASE("mariadb value fit: tinytext, text, mediumtext and the blobs count bytes") {
  fit_world w;
  // 127 é are 254 bytes, 128 are 256: fewer than 255 characters, but more than 255 bytes.
  CHECK(w.holds("tinytext", value::string(times(e_acute, 127))));
  CHECK(has(w.refusal("tinytext", value::string(times(e_acute, 128))),
            "256 bytes, the type holds 255"));
  CHECK(w.holds("text", value::string(std::string(65'535, 'x'))));
  CHECK_FALSE(w.holds("text", value::string(std::string(65'536, 'x'))));
  CHECK(w.holds("mediumtext", value::string(std::string(16'777'215, 'x'))));
  CHECK_FALSE(w.holds("mediumtext", value::string(std::string(16'777'216, 'x'))));
  CHECK(w.holds("longtext", value::string(std::string(16'777'216, 'x'))));
  // Bytes into a text column: their base64 (189 bytes: 252 characters; 192: 256).
  CHECK(w.holds("tinytext", value::bytes(std::string(189, 'b'))));
  CHECK(has(w.refusal("tinytext", value::bytes(std::string(192, 'b'))), "256 bytes of base64"));
  // Into a blob: the bytes themselves.
  CHECK(w.holds("tinyblob", value::bytes(std::string(255, 'b'))));
  CHECK_FALSE(w.holds("tinyblob", value::bytes(std::string(256, 'b'))));
  CHECK(w.holds("blob", value::bytes(std::string(65'535, 'b'))));
  CHECK_FALSE(w.holds("blob", value::bytes(std::string(65'536, 'b'))));
  CHECK_FALSE(w.holds("mediumblob", value::bytes(std::string(16'777'216, 'b'))));
  CHECK(w.holds("longblob", value::bytes(std::string(16'777'216, 'b'))));
}

TEST_CASE("mariadb value fit: integers within each type's range, signed and unsigned") {
  fit_world w;
  struct bound {
    const char* type;
    const char *low, *below_low, *high, *above_high;
  };
  const bound bounds[] = {
      {"tinyint(4)", "-128", "-129", "127", "128"},
      {"tinyint(3) unsigned", "0", "-1", "255", "256"},
      {"smallint(6)", "-32768", "-32769", "32767", "32768"},
      {"smallint(5) unsigned", "-0", "-1", "65535", "65536"},
      {"mediumint(9)", "-8388608", "-8388609", "8388607", "8388608"},
      {"mediumint(8) unsigned", "0", "-1", "16777215", "16777216"},
      {"int(11)", "-2147483648", "-2147483649", "2147483647", "2147483648"},
      {"int(10) unsigned", "0", "-1", "4294967295", "4294967296"},
      {"bigint(20)", "-9223372036854775808", "-9223372036854775809", "9223372036854775807",
       "9223372036854775808"},
      {"bigint(20) unsigned", "0", "-1", "18446744073709551615", "18446744073709551616"},
  };
  for (const bound& b : bounds) {
    CAPTURE(b.type);
    CHECK(w.holds(b.type, value::number(b.low)));
    CHECK(w.holds(b.type, value::number(b.high)));
    CHECK(has(w.refusal(b.type, value::number(b.below_low)), "out of its range, "));
    CHECK(has(w.refusal(b.type, value::number(b.above_high)), "out of its range, "));
    CHECK_FALSE(w.holds(b.type, value::string(std::string(b.above_high) + "0000")));
  }
  CHECK(has(w.refusal("tinyint(3) unsigned", value::number("256")), "0 to 255"));
  CHECK(has(w.refusal("tinyint(4)", value::number("-129")), "-128 to 127"));
  CHECK(w.holds("int(10) unsigned zerofill", value::number("4294967295")));
  CHECK_FALSE(w.holds("int(10) unsigned zerofill", value::number("-1")));
  CHECK_FALSE(w.holds("int", value::number("2147483648")));  // no display width (MySQL 8)
}

TEST_CASE("mariadb value fit: an integer column takes 1e3 and 1.0, never a fraction") {
  fit_world w;
  // MariaDB reads '1e3' as 1000, but rounds '1.5' to 2 without a warning.
  CHECK(w.holds("int(11)", value::number("1e3")));
  CHECK(w.holds("int(11)", value::number("1E+3")));
  CHECK(w.holds("int(11)", value::number("1.0")));
  CHECK(w.holds("int(11)", value::number("-2.50e1")));  // -25
  CHECK(w.holds("int(11)", value::number("1500e-2")));  // 15
  CHECK(w.holds("int(11)", value::number("0e99999")));
  CHECK(w.holds("int(11)", value::string(" 7 ")));
  CHECK(w.holds("int(11)", value::string("+7")));
  CHECK(w.holds("tinyint(3) unsigned", value::number("2.55e2")));
  CHECK(has(w.refusal("tinyint(4)", value::number("1.5e2")), "out of its range"));
  CHECK(has(w.refusal("int(11)", value::number("1.5")), "not an integer"));
  CHECK(has(w.refusal("int(11)", value::number("15e-1")), "not an integer"));
  CHECK(has(w.refusal("int(11)", value::number("1e-3")), "not an integer"));
  CHECK(has(w.refusal("bigint(20) unsigned", value::number("1e20")), "out of its range"));
  CHECK(has(w.refusal("bigint(20)", value::number("1e100000000")), "out of its range"));
  CHECK(w.holds("bigint(20) unsigned", value::number("1.8446744073709551615e19")));
  for (const char* bad : {"abc", "", "1e", "e3", ".", "1.2.3", "0x10", "1 2", "--1"}) {
    CAPTURE(bad);
    CHECK(has(w.refusal("int(11)", value::string(bad)), "not an integer"));
  }
  // A boolean is written as 1 or 0.
  CHECK(w.holds("tinyint(3) unsigned", value::boolean(true)));
  // JSON and bytes are left to the server's strict conversion.
  CHECK(w.holds("int(11)", value::json("[1.5]")));
  CHECK(w.holds("int(11)", value::bytes("\x01\x02")));
}

TEST_CASE("mariadb value fit: decimal(p,s) refuses the fraction MariaDB would round") {
  fit_world w;
  CHECK(w.holds("decimal(12,2)", value::number("12.34")));
  CHECK(w.holds("decimal(12,2)", value::number("12.3")));
  CHECK(w.holds("decimal(12,2)", value::number("12.3400")));  // trailing zeros are no digits
  const auto why = w.refusal("decimal(12,2)", value::number("12.345"));
  CHECK(has(why, "more than 2 fractional digits, which MariaDB would round"));
  CHECK(has(why, "\"12.345\""));
  CHECK(has(why, "(decimal(12,2))"));
  CHECK(w.holds("decimal(12,2)", value::number("1234567890.12")));
  CHECK(has(w.refusal("decimal(12,2)", value::number("12345678901")), "more than 10 integer"));
  CHECK(has(w.refusal("decimal(12,2)", value::number("-12345678901.5")), "more than 10 integer"));
  // Exponents: 1.2345e3 is 1234.5, 1e10 has 11 integer digits, 1e-3 three fractional ones.
  CHECK(w.holds("decimal(12,2)", value::number("1.2345e3")));
  CHECK(w.holds("decimal(12,2)", value::number("1e9")));
  CHECK_FALSE(w.holds("decimal(12,2)", value::number("1e10")));
  CHECK(has(w.refusal("decimal(12,2)", value::number("1e-3")), "fractional digits"));
  CHECK(w.holds("decimal(12,2)", value::string(" 5.5 ")));
  CHECK(w.holds("decimal(10,0)", value::number("42")));
  CHECK_FALSE(w.holds("decimal(10,0)", value::number("42.5")));
  CHECK(w.holds("decimal(65,30)", value::number(times("9", 35) + "." + times("9", 30))));
  CHECK_FALSE(w.holds("decimal(65,30)", value::number("0." + times("1", 31))));
  // Unsigned: no negative value, though a negative zero is zero.
  CHECK(has(w.refusal("decimal(5,2) unsigned", value::number("-1.5")), "negative"));
  CHECK(w.holds("decimal(5,2) unsigned", value::number("-0.00")));
  CHECK(has(w.refusal("decimal(12,2)", value::string("twelve")), "not a number"));
  // A boolean is 1 or 0: decimal(2,2) holds no 1.
  CHECK(w.holds("decimal(3,2)", value::boolean(true)));
  CHECK_FALSE(w.holds("decimal(2,2)", value::boolean(true)));
  CHECK(w.holds("decimal(2,2)", value::boolean(false)));
  CHECK(w.holds("decimal(12,2)", value::json("{\"a\": 1}")));  // left to the server
}

TEST_CASE("mariadb value fit: a boolean column (tinyint(1)) takes booleans, 0 and 1 only") {
  fit_world w;
  CHECK(w.holds("tinyint(1)", value::boolean(true)));
  CHECK(w.holds("tinyint(1)", value::boolean(false)));
  CHECK(w.holds("tinyint(1)", value::number("0")));
  CHECK(w.holds("tinyint(1)", value::number("1")));
  CHECK(w.holds("tinyint(1)", value::string("1")));
  CHECK(has(w.refusal("tinyint(1)", value::number("2")), "not a boolean, 0 or 1"));
  CHECK_FALSE(w.holds("tinyint(1)", value::number("-1")));
  CHECK_FALSE(w.holds("tinyint(1)", value::string("true")));  // the server's: not an integer
  CHECK_FALSE(w.holds("tinyint(1)", value::number("0.5")));
  // Unsigned, it is a tinyint like another.
  CHECK(w.holds("tinyint(1) unsigned", value::number("2")));
}

TEST_CASE("mariadb value fit: key columns are checked, and only the unfit row is rejected") {
  fit_world w;
  std::vector<uint8_t> rejected;
  const auto letters = w.check({w.upsert(value::string("abcd"), value::string("fits")),
                                w.upsert(value::string("abcde"), value::string("fits")),
                                w.upsert(value::string("ab"), value::string(times(e_acute, 9)))},
                               fit_world::shape("varchar(4)", "varchar(8)"), &rejected);
  REQUIRE(letters.size() == 2);
  CHECK(rejected == std::vector<uint8_t>{1, 0, 1});  // in key order: "ab", "abcd", "abcde"
  CHECK(has(letters[0].reason, "column \"v\" (varchar(8))"));
  CHECK(has(letters[1].reason, "shop.orders: column \"id\" (varchar(4)) cannot hold \"abcde\""));
  CHECK(letters[1].value);  // the merged row, replayable
  // A delete is checked by its key.
  change del = w.upsert(value::number("300"), value::null());
  del.op = op_kind::remove;
  del.after.clear();
  CHECK(w.check({del}, fit_world::shape("tinyint(4)", "int(11)")).size() == 1);
}

TEST_CASE("mariadb value fit: nulls, absent values, other types and new tables are not checked") {
  fit_world w;
  CHECK(w.holds("varchar(1)", value::null()));
  CHECK(w.holds("tinyint(1)", value::null()));
  CHECK(w.holds("json", value::json(times("[1]", 100))));
  CHECK(w.holds("double", value::number("1e308")));
  CHECK(w.holds("datetime(6)", value::string(times("x", 100))));
  CHECK(w.holds("uuid", value::string(times("x", 100))));
  table_shape missing = fit_world::shape("varchar(1)", "varchar(1)");
  missing.exists = false;
  CHECK(w.check({w.upsert(value::string("long key"), value::string("long"))}, missing).empty());
  // A column the table does not have yet (auto.evolve adds it) has nothing to check.
  table_shape other = fit_world::shape("varchar(8)", "varchar(1)");
  other.columns[1].name = "w";
  CHECK(w.check({w.upsert(value::string("k"), value::string("long"))}, other).empty());
}

TEST_CASE("mariadb value fit: the reason shows a long value cut between characters") {
  fit_world w;
  // 59 ASCII bytes then é: a cut at 60 bytes would split the é.
  const std::string text = std::string(59, 'a') + times(e_acute, 10);
  const auto why = w.refusal("varchar(20)", value::string(text));
  REQUIRE(why);
  CHECK(has(why, "\"" + std::string(59, 'a') + "...\""));
  CHECK(why->find(text) == std::string::npos);
  CHECK(has(w.refusal("varbinary(2)", value::bytes("abc")), "cannot hold (3 bytes)"));
}

TEST_CASE("mariadb value fit: the reason names a stream type wider than the column") {
  fit_world w;
  column_type wide;
  wide.id = type_id::string;
  wide.length = 80;
  CHECK(has(w.refusal("varchar(40)", value::string(std::string(41, 'x')), wide),
            "the stream's type is string(80) (auto.evolve.widen: true widens the column)"));
  column_type narrow = wide;
  narrow.length = 40;
  const auto why = w.refusal("varchar(40)", value::string(std::string(41, 'x')), narrow);
  REQUIRE(why);
  CHECK(why->find("stream's type") == std::string::npos);
  column_type money;
  money.id = type_id::decimal;
  money.precision = 12;
  money.scale = 3;
  CHECK(has(w.refusal("decimal(12,2)", value::number("12.345"), money),
            "the stream's type is decimal(12,3)"));
  CHECK_FALSE(has(w.refusal("varchar(4)", value::string("12345")), "stream's type"));
}

TEST_CASE("mariadb value fit: a keyless change that does not fit is a dead letter") {
  fit_world w;
  change c;
  c.table = w.orders;
  c.after = {{"v", value::number("12.345")}, {"note", value::string("ok")}};
  c.source.origin.topic = "cdc";
  c.source.origin.offset = kafka_offset(7);
  c.seq = csn_builder().add(1).build();
  table_shape s;
  s.exists = true;
  s.columns = {{"v", "decimal(12,2)", "", true}, {"note", "varchar(8)", "", true}};
  std::vector<uint8_t> rejected;
  const auto letters = w.check({c}, s, &rejected);
  REQUIRE(letters.size() == 1);
  CHECK(rejected == std::vector<uint8_t>{1});
  CHECK(letters[0].kind == dead_letter_kind::rejected);
  CHECK(letters[0].origin.offset == kafka_offset(7));
  CHECK(has(letters[0].reason, "column \"v\" (decimal(12,2)) cannot hold \"12.345\""));
  c.after[0].v = value::number("12.34");
  CHECK(w.check({c}, s).empty());
}

}  // namespace
}  // namespace sluice
