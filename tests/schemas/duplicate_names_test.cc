#include "schemas/common/duplicate_names.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice {
namespace {

std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

// n distinct names of one length ("c0000", "c0001"…): every pair reaches memcmp.
std::vector<std::string> columns(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string name = std::to_string(i);
    out.push_back("c" + std::string(4 - name.size(), '0') + name);
  }
  return out;
}

TEST_CASE("distinct member names have no duplicate") {
  std::vector<std::string_view> none;
  CHECK_FALSE(find_duplicate_name(none));
  std::vector<std::string_view> one{"id"};
  CHECK_FALSE(find_duplicate_name(one));
  std::vector<std::string_view> prefixes{"id", "i", "id2", "", "Id"};
  CHECK_FALSE(find_duplicate_name(prefixes));
}

TEST_CASE("a name given twice is found, in small and in wide objects") {
  std::vector<std::string_view> small{"id", "note", "amount", "note"};
  CHECK(find_duplicate_name(small) == "note");
  std::vector<std::string_view> empty_twice{"", "a", ""};
  CHECK(find_duplicate_name(empty_twice) == "");

  for (size_t n : {31, 32, 33, 4096}) {
    CAPTURE(n);
    std::vector<std::string> names = columns(n);
    std::vector<std::string_view> distinct = views(names);
    CHECK_FALSE(find_duplicate_name(distinct));
    names.push_back(names[n / 2]);  // the last name repeats one in the middle
    std::vector<std::string_view> repeated = views(names);
    CHECK(find_duplicate_name(repeated) == names[n / 2]);
  }
}

TEST_CASE("names of any length compare equal only when every byte matches") {
  // same_text reads short names as overlapping words: a difference at any position, and
  // at either end of a word, must still be seen.
  for (size_t n = 0; n <= 40; ++n) {
    CAPTURE(n);
    std::string a(n, 'x');
    for (size_t i = 0; i < n; ++i)
      a[i] = static_cast<char>('a' + i % 26);
    const std::string b = a;
    CHECK(same_text(a, b));
    CHECK_FALSE(same_text(a, a + "z"));
    for (size_t at = 0; at < n; ++at) {
      CAPTURE(at);
      std::string c = a;
      c[at] = static_cast<char>(c[at] ^ 0x20);
      CHECK_FALSE(same_text(a, c));
    }
  }
}

}  // namespace
}  // namespace sluice
