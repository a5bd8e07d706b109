#include "core/model/csn.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace sluice {
namespace {

using tuple = std::vector<csn_part>;

csn encode(const tuple& t) {
  csn_builder b;
  for (const csn_part& p : t) {
    if (const auto* i = std::get_if<int64_t>(&p)) {
      b.add(*i);
    } else {
      b.add(std::get<std::string>(p));
    }
  }
  return b.build();
}

// Tuple order as SPEC §2 defines it: part by part; an integer orders below a string at the
// same position; a prefix orders below the longer tuple.
int tuple_compare(const tuple& a, const tuple& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i].index() != b[i].index()) return a[i].index() < b[i].index() ? -1 : 1;
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

csn_part random_part(std::mt19937_64& rng) {
  static const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -256, -1, 0, 1, 255, 256, INT64_MAX};
  switch (rng() % 4) {
    case 0:
      return edges[rng() % std::size(edges)];
    case 1:
      return static_cast<int64_t>(rng());
    default: {
      // Short strings over a tiny alphabet with NUL and 0xff, so prefixes and escapes collide.
      static const char alphabet[] = {'\0', '\x01', 'a', 'b', '\xff'};
      std::string s(rng() % 4, 'a');
      for (char& c : s)
        c = alphabet[rng() % std::size(alphabet)];
      return s;
    }
  }
}

}  // namespace

TEST_CASE("csn byte order equals tuple order for random tuples") {
  std::mt19937_64 rng(20261130);
  for (int round = 0; round < 20000; ++round) {
    tuple a(rng() % 4), b(rng() % 4);
    for (auto& p : a)
      p = random_part(rng);
    for (auto& p : b)
      p = random_part(rng);
    if (rng() % 3 == 0) b = a;  // equal tuples too
    if (rng() % 5 == 0 && !a.empty()) b.assign(a.begin(), a.begin() + rng() % a.size());
    const int expected = tuple_compare(a, b);
    const int actual = encode(a).bytes().compare(encode(b).bytes());
    INFO("round " << round);
    CHECK((actual < 0 ? -1 : actual > 0 ? 1 : 0) == expected);
  }
}

TEST_CASE("csn parts decode back to the tuple that was encoded") {
  const tuple t{int64_t{1}, std::string("mysql-bin.000010"), int64_t{-5}, std::string("a\0b", 3),
                std::string()};
  const csn c = encode(t);
  CHECK(c.parts() == t);
  auto back = csn::from_bytes(c.bytes());
  REQUIRE(back.ok());
  CHECK(*back == c);
}

TEST_CASE("csn rejects encodings of another format version or malformed bytes") {
  CHECK_FALSE(csn::from_bytes(std::string("\x02", 1)).ok());
  CHECK_FALSE(csn::from_bytes(std::string("\x01\x01\x00", 3)).ok());  // truncated integer
  CHECK_FALSE(csn::from_bytes(std::string("\x01\x02"
                                          "ab",
                                          4))
                  .ok());  // unterminated string
  CHECK(csn::from_bytes("").ok());
}

TEST_CASE("a PostgreSQL LSN compared as a number orders 0/FFFFFF0 below 0/10000008") {
  const csn low = csn_builder().add(1).add(int64_t{0xFFFFFF0}).build();
  const csn high = csn_builder().add(1).add(int64_t{0x10000008}).build();
  CHECK(low < high);
}

TEST_CASE("the empty csn orders below every encoded one") {
  CHECK(csn() < csn_builder().build());
  CHECK(csn() < csn_builder().add(INT64_MIN).build());
}

}  // namespace sluice
