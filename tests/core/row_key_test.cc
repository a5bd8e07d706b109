#include "core/model/row_key.h"

#include <doctest/doctest.h>

namespace sluice {

TEST_CASE("a numeric key is one key whether sent as 42, \"42\" or 42.0") {
  const std::vector<column_class> numeric{column_class::numeric};
  auto a = make_row_key({"id"}, {value::number("42")}, numeric);
  auto b = make_row_key({"id"}, {value::string("42")}, numeric);
  auto c = make_row_key({"id"}, {value::number("42.0")}, numeric);
  auto d = make_row_key({"id"}, {value::number("4.2e1")}, {});
  REQUIRE((a.ok() && b.ok() && c.ok() && d.ok()));
  CHECK(a->canonical == b->canonical);
  CHECK(a->canonical == c->canonical);
  CHECK(a->canonical == d->canonical);
  CHECK(a->values[0].text == "42");
}

TEST_CASE("the Oracle key \"1231535353\" equals 1231535353 on a numeric column") {
  auto a = make_row_key({"ID"}, {value::string("1231535353")}, {column_class::numeric});
  auto b = make_row_key({"ID"}, {value::number("1231535353")}, {column_class::numeric});
  REQUIRE((a.ok() && b.ok()));
  CHECK(*a == *b);
}

TEST_CASE("a string key on a text or unknown column stays a string") {
  auto text = make_row_key({"code"}, {value::string("42")}, {column_class::text});
  auto unknown = make_row_key({"code"}, {value::string("42")}, {});
  auto number = make_row_key({"code"}, {value::number("42")}, {});
  REQUIRE((text.ok() && unknown.ok() && number.ok()));
  CHECK(text->canonical == unknown->canonical);
  CHECK(text->canonical != number->canonical);
  CHECK(text->values[0].text == "42");
}

TEST_CASE("composite keys do not collide when parts shift between columns") {
  auto a = make_row_key({"a", "b"}, {value::string("x"), value::string("yz")});
  auto b = make_row_key({"a", "b"}, {value::string("xy"), value::string("z")});
  REQUIRE((a.ok() && b.ok()));
  CHECK(a->canonical != b->canonical);
}

TEST_CASE("a null key value or a non-number on a numeric column is an error") {
  CHECK_FALSE(make_row_key({"id"}, {value::null()}).ok());
  CHECK_FALSE(make_row_key({"id"}, {value::string("abc")}, {column_class::numeric}).ok());
  CHECK_FALSE(make_row_key({"id", "x"}, {value::number("1")}).ok());
}

TEST_CASE("canonical numbers drop signs of zero, leading and trailing zeros, exponents") {
  CHECK(canonical_number("-0.000") == "0");
  CHECK(canonical_number("007") == "7");
  CHECK(canonical_number("1.500") == "1.5");
  CHECK(canonical_number("1.5e2") == "150");
  CHECK(canonical_number("15e-3") == "0.015");
  CHECK(canonical_number("-12.0E+1") == "-120");
  CHECK(canonical_number("9223372036854775807") == "9223372036854775807");
  CHECK(canonical_number("12345678901234567890123456789012345678") ==
        "12345678901234567890123456789012345678");
  CHECK_FALSE(canonical_number("1e400000").has_value());
  CHECK_FALSE(canonical_number("abc").has_value());
  CHECK_FALSE(canonical_number("1.2.3").has_value());
  CHECK_FALSE(canonical_number("").has_value());
  CHECK_FALSE(canonical_number("-").has_value());
}

TEST_CASE("a key's canonical bytes are its canonical number's, however the number is written") {
  // Integers already canonical are kept as they are; all others go through canonical_number.
  for (std::string_view n :
       {"0", "-0", "7", "-7", "007", "-007", "10", "100", "1.0", "1e3", "+5",
        "-9223372036854775808", "123456789012345678901234567890", "0.50", "-0.0"}) {
    CAPTURE(n);
    auto k = make_row_key({"id"}, {value::number(n)}, {});
    REQUIRE(k.ok());
    const auto canon = canonical_number(n);
    REQUIRE(canon);
    CHECK(k->values[0].text == *canon);
    auto from_canon = make_row_key({"id"}, {value::number(*canon)}, {});
    REQUIRE(from_canon.ok());
    CHECK(k->canonical == from_canon->canonical);
  }
  // canonical_number's bound on digits holds for plain integers too.
  CHECK(make_row_key({"id"}, {value::number(std::string(1024, '9'))}, {}).ok());
  CHECK_FALSE(make_row_key({"id"}, {value::number(std::string(1025, '9'))}, {}).ok());
}

TEST_CASE("NUL bytes in a text key are escaped, so keys that differ there stay apart") {
  auto a = make_row_key({"k"}, {value::string(std::string("a\0b", 3))}, {});
  auto b = make_row_key({"k"}, {value::string(std::string("a\0\0b", 4))}, {});
  auto c = make_row_key({"k"}, {value::string("a")}, {});
  REQUIRE((a.ok() && b.ok() && c.ok()));
  CHECK(a->canonical.substr(1) == std::string("a\0\xff"
                                              "b\0\x01",
                                              6));
  CHECK(b->canonical.substr(1) == std::string("a\0\xff\0\xff"
                                              "b\0\x01",
                                              8));
  CHECK(a->canonical != b->canonical);
  CHECK(a->canonical != c->canonical);
}

}  // namespace sluice
