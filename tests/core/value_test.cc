#include "core/model/value.h"

#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace sluice {
namespace {

// The integer digits of canonical_number(text), counted on the text it builds.
std::optional<size_t> digits_of_canonical(std::string_view text, size_t max_digits) {
  const auto canon = canonical_number(text, max_digits);
  if (!canon) return std::nullopt;
  std::string_view c = *canon;
  if (c.front() == '-') c.remove_prefix(1);
  const std::string_view whole = c.substr(0, c.find('.'));
  return whole == "0" ? 0 : whole.size();
}

}  // namespace

TEST_CASE("canonical integer digits are those of the canonical number, counted in place") {
  CHECK(canonical_integer_digits("00123.4500") == 3u);
  CHECK(canonical_integer_digits("-0.001") == 0u);
  CHECK(canonical_integer_digits("1.5e2") == 3u);
  CHECK(canonical_integer_digits("12e-1") == 1u);
  CHECK(canonical_integer_digits("0e9") == 0u);
  CHECK_FALSE(canonical_integer_digits("1e400000"));
  CHECK_FALSE(canonical_integer_digits("NaN"));
  CHECK_FALSE(canonical_integer_digits(""));

  // Every text of a small alphabet up to 5 characters, and random longer ones, with the
  // default bound and a small one (the width bound refuses some).
  const std::string_view alphabet = "0159.-+eE";
  std::string text;
  const auto same = [&](std::string_view t) {
    for (size_t max_digits : {size_t{1024}, size_t{3}, size_t{6}}) {
      CAPTURE(t);
      CAPTURE(max_digits);
      CHECK(canonical_integer_digits(t, max_digits) == digits_of_canonical(t, max_digits));
    }
  };
  const auto all = [&](auto& self, size_t left) -> void {
    same(text);
    if (left == 0) return;
    for (char c : alphabet) {
      text.push_back(c);
      self(self, left - 1);
      text.pop_back();
    }
  };
  all(all, 5);
  std::mt19937 rng(14);
  for (int i = 0; i < 20000; ++i) {
    std::string t;
    const size_t n = rng() % 16;
    for (size_t k = 0; k < n; ++k)
      t.push_back(alphabet[rng() % alphabet.size()]);
    same(t);
  }
}

}  // namespace sluice
