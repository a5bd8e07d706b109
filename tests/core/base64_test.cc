#include "core/model/base64.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace sluice {

TEST_CASE("base64: each digit of the standard alphabet has its value, anything else none") {
  constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < alphabet.size(); ++i) {
    CHECK(base64_digit(alphabet[i]) == static_cast<int>(i));
  }
  for (char c : std::string_view("=-_ .\\\"\0\x80\xff", 11)) {
    CHECK(base64_digit(c) == -1);
  }
  static_assert(base64_digit('/') == 63);
}

TEST_CASE("base64: what is encoded decodes back, with or without padding") {
  for (std::string_view bytes : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    const std::string text = encode_base64(bytes);
    std::string back;
    REQUIRE(decode_base64(text, back));
    CHECK(back == bytes);
    const std::string unpadded = text.substr(0, text.find('='));
    REQUIRE(decode_base64(unpadded, back));
    CHECK(back == bytes);
  }
  CHECK(encode_base64("foobar") == "Zm9vYmFy");
  CHECK(encode_base64("fo") == "Zm8=");
}

TEST_CASE("base64 decodes with or without padding and refuses other text") {
  std::string out;
  CHECK(decode_base64("C7c=", out));
  CHECK(out == "\x0b\xb7");
  CHECK(decode_base64("C7c", out));
  CHECK(out == "\x0b\xb7");
  CHECK(decode_base64("", out));
  CHECK(out.empty());
  CHECK_FALSE(decode_base64("C7c*", out));
  CHECK_FALSE(decode_base64("C", out));
  CHECK(encode_base64("__debezium_unavailable_value") ==
        "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==");
  CHECK(encode_base64("ab") == "YWI=");
}

}  // namespace sluice
