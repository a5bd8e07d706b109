#include "schemas/common/json_value_reader.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "schemas/common/padded_buffer.h"

namespace sluice {
namespace {

// Reads the value of member "v" of a one-member object.
struct harness {
  simdjson::ondemand::parser parser;
  padded_buffer buffer;
  json_value_reader reader{64};
  std::vector<json_leaf> leaves;

  result<json_token> read(std::string_view v) {
    auto member = open(v);
    if (!member) return member.err();
    leaves.clear();
    return reader.read(*member, &leaves);
  }

  result<value> read_value(std::string_view v) {
    auto member = open(v);
    if (!member) return member.err();
    return reader.read_value(*member);
  }

 private:
  result<simdjson::ondemand::value> open(std::string_view v) {
    _text = R"({"v":)" + std::string(v) + "}";
    auto padded = buffer.assign(_text);
    reader.begin_document(padded);
    if (auto code = parser.iterate(padded).get(_doc)) return json_error(code);
    simdjson::ondemand::value value;
    if (auto code = _doc["v"].get(value)) return json_error(code);
    return value;
  }

  std::string _text;
  simdjson::ondemand::document _doc;
};

}  // namespace

TEST_CASE("the reader keeps numbers as their exact text and never as doubles") {
  harness h;
  for (std::string_view n : {"0", "-0", "9007199254740993", "9223372036854775807",
                             "-9223372036854775809", "1e400", "1E+2", "0.1000", "-1.5e-300",
                             "123456789012345678901234567890123456789012345678901234567890"}) {
    CAPTURE(n);
    auto t = h.read(std::string(n) + "  \n");
    REQUIRE(t.ok());
    CHECK(t->kind == json_kind::number);
    CHECK(t->text == n);
  }
  for (std::string_view bad :
       {"01", "+1", ".5", "1.", "1e", "1e+", "--1", "0x1", "1_0", "NaN", "Infinity", "-"}) {
    CAPTURE(bad);
    CHECK_FALSE(h.read(bad).ok());
  }
}

TEST_CASE("the reader lists the scalars of a container and returns its raw text") {
  harness h;
  auto t = h.read(R"( {"t": 1709287200, "i": [3, "x\"y", null, false]} )");
  REQUIRE(t.ok());
  CHECK(t->kind == json_kind::object);
  CHECK(t->text == R"({"t": 1709287200, "i": [3, "x\"y", null, false]})");
  REQUIRE(h.leaves.size() == 5);
  CHECK(h.leaves[0].name == "t");
  CHECK(h.leaves[0].token.text == "1709287200");
  CHECK(h.leaves[1].name.empty());
  CHECK(h.leaves[2].token.text == "x\"y");
  CHECK(h.leaves[3].token.kind == json_kind::null);
  CHECK(h.leaves[4].token.kind == json_kind::boolean);
}

TEST_CASE("the reader bounds depth and refuses \\u0000 anywhere") {
  harness h;
  h.reader = json_value_reader(2);
  CHECK(h.read("[[1]]").ok());
  CHECK(h.read("[[[1]]]").err().code == error_code::too_deep);
  CHECK(h.read(R"({"a":{"b":{}}})").err().code == error_code::too_deep);
  CHECK(h.read(R"("\u0000")").err().code == error_code::nul_in_text);
  CHECK(h.read(R"({"\u0000":1})").err().code == error_code::nul_in_text);
}

TEST_CASE("an escaped backslash before u0000 is text, not \\u0000, wherever the escape sits") {
  harness h;
  // The document-wide pre-check sees "\\u0000" as a possible \u0000 and falls back to
  // checking each string: that must accept these and still refuse the real escape after them.
  auto t = h.read(R"(["\\u0000", {"k\\u0000": "\\\\u0000"}])");
  REQUIRE(t.ok());
  REQUIRE(h.leaves.size() == 2);
  CHECK(h.leaves[0].token.text == "\\u0000");
  CHECK(h.leaves[1].name == "k\\u0000");
  CHECK(h.leaves[1].token.text == "\\\\u0000");
  CHECK(h.read(R"(["\\u0000", "a\u0000b"])").err().code == error_code::nul_in_text);
  CHECK(h.read(R"({"x\\": 1, "\u0000": 2})").err().code == error_code::nul_in_text);
  // No backslash at all, or escapes that are not \u0000: nothing to refuse.
  CHECK(h.read(R"({"a": "plain", "b": "tab\t\u00e9\u0001\/"})").ok());
}

TEST_CASE("\\u0000 is found at every position of documents of every length") {
  harness h;
  // The pre-check reads the document in 64- and 16-byte steps: the escape may sit anywhere,
  // even across a step's end.
  for (size_t before = 0; before < 140; before += 3) {
    for (size_t after = 0; after < 70; ++after) {
      CAPTURE(before);
      CAPTURE(after);
      const std::string text = std::string(before, 'a') + R"(\u0000)" + std::string(after, 'b');
      REQUIRE(h.read("\"" + text + "\"").err().code == error_code::nul_in_text);
      REQUIRE(h.read("\"" + std::string(before, 'a') + R"(\u0001)" + std::string(after, 'b') + "\"")
                  .ok());
    }
  }
}

TEST_CASE("read_value maps JSON kinds onto value kinds") {
  harness h;
  CHECK(*h.read_value("null") == value::null());
  CHECK(*h.read_value("true") == value::boolean(true));
  CHECK(*h.read_value("false") == value::boolean(false));
  CHECK(*h.read_value("-1.50") == value::number("-1.50"));
  CHECK(*h.read_value(R"("a\tb\u00e9")") == value::string("a\tbé"));
  CHECK(*h.read_value("[1, {}]") == value::json("[1, {}]"));
  CHECK(*h.read_value(R"({"k": "v"} )") == value::json(R"({"k": "v"})"));
}

TEST_CASE("numbers are checked digit by digit whatever their length") {
  // Long digit runs are read eight bytes at a time: a non-digit anywhere, including the
  // bytes next to '0' and '9' ('/' and ':'), must still be refused.
  for (size_t n = 1; n <= 24; ++n) {
    CAPTURE(n);
    std::string digits(n, '7');
    CHECK(is_json_number(digits));
    CHECK(is_json_number("-" + digits));
    CHECK(is_json_number("1." + digits));
    CHECK(is_json_number("1" + digits + "e-" + digits));
    for (size_t at = 0; at < n; ++at) {
      for (char bad : {'/', ':', 'a', ' ', '\0', '\x80'}) {
        std::string s = "1" + digits;
        s[1 + at] = bad;
        CAPTURE(at);
        CHECK_FALSE(is_json_number(s));
        CHECK_FALSE(is_json_number("0." + s.substr(1)));
      }
    }
  }
  CHECK(is_json_number("1705318200123456789"));
  CHECK(is_json_number("-0.0000000000000000001"));
  CHECK_FALSE(is_json_number("01234567890"));
  CHECK_FALSE(is_json_number("1234567890."));
}

}  // namespace sluice

namespace sluice {

TEST_CASE("strings and names read in place are the unescaped ones, escapes anywhere") {
  harness h;
  const std::string tail(40, 'x');  // escapes before and after the first 16 and 32 bytes
  for (const std::string& s :
       {std::string(""), std::string("a"), std::string("0123456789abcde"),
        std::string("0123456789abcdef"), std::string("0123456789abcdef0"), tail,
        std::string("\\\"") + tail, tail + "\\n", std::string("0123456789abcdef\\u00e9"),
        std::string("0123456789abcdef0123456789abcdef\\/z"), std::string("\xc3\xa9t\xc3\xa9")}) {
    CAPTURE(s);
    std::string unescaped;
    {
      simdjson::ondemand::parser p;
      simdjson::padded_string text("\"" + s + "\"");
      std::string_view u;
      REQUIRE(p.iterate(text).get_string().get(u) == simdjson::SUCCESS);
      unescaped = std::string(u);
    }
    auto t = h.read("\"" + s + "\" ");
    REQUIRE(t.ok());
    CHECK(t->kind == json_kind::string);
    CHECK(t->text == unescaped);
    auto o = h.read("{\"" + s + "\": 1}");
    REQUIRE(o.ok());
    REQUIRE(h.leaves.size() == 1);
    CHECK(h.leaves[0].name == unescaped);
  }
  // Whitespace around the colon, a string as the last token before the brace.
  auto o = h.read("{\"ab\" \n\t: \"cd\" ,\"\":\"\"\r}");
  REQUIRE(o.ok());
  REQUIRE(h.leaves.size() == 2);
  CHECK(h.leaves[0].name == "ab");
  CHECK(h.leaves[0].token.text == "cd");
  CHECK(h.leaves[1].name.empty());
  CHECK(h.leaves[1].token.text.empty());
}

}  // namespace sluice

namespace sluice {

TEST_CASE("check_json_text: one JSON value, as jsonb takes it") {
  for (std::string_view ok : {R"({"a": [1, 2]})", "42", "1e400", "184467440737095516162", R"("s")",
                              " [1] ", "null", "[[[]]]"}) {
    CAPTURE(ok);
    CHECK(!check_json_text(ok, 8));
  }
  for (std::string_view bad : {R"({"a":})", "1,2", "1] [2", R"("\u0000")", "", "{\"a\":1} x",
                               ";a\": [1, 2]}", "[[[[[[[[[[1]]]]]]]]]]"}) {
    CAPTURE(bad);
    CHECK(check_json_text(bad, 8));
  }
}

}  // namespace sluice
