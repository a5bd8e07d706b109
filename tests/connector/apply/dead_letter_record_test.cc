#include "connector/apply/dead_letter_record.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace sluice;
namespace header = sluice::dead_letter_header;

namespace {

dead_letter letter(size_t value_size, size_t key_size = 8) {
  dead_letter d;
  d.reason = "invalid JSON at byte 1";
  d.origin.topic = "cdc.orders";
  d.origin.partition = partition_id{3};
  d.origin.offset = kafka_offset{1234};
  d.key = std::string(key_size, 'k');
  d.value = std::string(value_size, 'v');
  d.headers = {{"trace", "abc"}, {"null-valued", std::nullopt}};
  return d;
}

// The last value of each header name.
std::map<std::string, std::string> by_name(const dead_letter_record& r) {
  std::map<std::string, std::string> out;
  for (const auto& h : r.headers)
    out[h.name] = h.value.value_or("<null>");
  return out;
}

}  // namespace

TEST_CASE(
    "a dead letter that fits keeps its key, value and headers, and gains sluice's and "
    "Kafka Connect's headers") {
  const dead_letter d = letter(100);
  const dead_letter_record r = make_dead_letter_record(d, "orders-sink", 1'000'000);
  CHECK(r.key == std::optional<std::string_view>(*d.key));
  CHECK(r.value == std::optional<std::string_view>(*d.value));
  REQUIRE(r.headers.size() >= 2);
  CHECK(r.headers[0].name == "trace");  // the original headers first, in order
  CHECK(r.headers[1].name == "null-valued");
  CHECK_FALSE(r.headers[1].value);
  const auto h = by_name(r);
  CHECK(h.at("__sluice.reason") == d.reason);
  CHECK(h.at("__sluice.topic") == "cdc.orders");
  CHECK(h.at("__sluice.partition") == "3");
  CHECK(h.at("__sluice.offset") == "1234");
  CHECK(h.at("__sluice.kind") == "decode");
  CHECK_FALSE(h.contains("__sluice.target"));  // not about one table
  CHECK(h.at("__connect.errors.topic") == "cdc.orders");
  CHECK(h.at("__connect.errors.partition") == "3");
  CHECK(h.at("__connect.errors.offset") == "1234");
  CHECK(h.at("__connect.errors.connector.name") == "orders-sink");
  CHECK(h.at("__connect.errors.exception.class.name") == "sluice.dead_letter");
  CHECK(h.at("__connect.errors.exception.message") == d.reason);
  CHECK_FALSE(h.contains("__sluice.truncated"));
  CHECK_FALSE(h.contains("__sluice.truncated.part"));
  CHECK(r.size() <= 1'000'000);
}

TEST_CASE("a value larger than the budget is cut to fit, and the headers say its original size") {
  const dead_letter d = letter(5 * 1024 * 1024);
  const size_t budget = 1'048'576 - 61;
  const dead_letter_record r = make_dead_letter_record(d, "", budget);
  CHECK(r.size() <= budget);
  CHECK(r.size() > budget - 200);  // cut to fit, not far below
  REQUIRE(r.value);
  CHECK(r.value->size() < d.value->size());
  CHECK(*r.value == std::string_view(*d.value).substr(0, r.value->size()));
  CHECK(r.key == std::optional<std::string_view>(*d.key));
  const auto h = by_name(r);
  CHECK(h.at("__sluice.truncated") == "5242880");
  CHECK(h.at("__sluice.truncated.part") == "value");
  CHECK(h.contains("trace"));
  CHECK_FALSE(h.contains("__connect.errors.connector.name"));  // no connector named
}

TEST_CASE(
    "the original headers go when they do not fit beside the key, and the key is cut when "
    "it alone does not fit") {
  dead_letter d = letter(50'000, 30'000);
  d.headers = {{"big", std::string(20'000, 'h')}};
  SUBCASE("the headers are dropped, the key is kept") {
    const dead_letter_record r = make_dead_letter_record(d, "c", 35'000);
    CHECK(r.size() <= 35'000);
    CHECK(r.key == std::optional<std::string_view>(*d.key));
    REQUIRE(r.value);  // what room the headers leave keeps the value's first bytes
    CHECK(r.value->size() > 4'000);
    CHECK(r.value->size() < 5'000);
    const auto h = by_name(r);
    CHECK_FALSE(h.contains("big"));
    CHECK(h.at("__sluice.truncated.part") == "value,headers");
    CHECK(h.at("__sluice.truncated") == std::to_string(50'000 + 3 + 20'000));
  }
  SUBCASE("the key is cut as well") {
    const dead_letter_record r = make_dead_letter_record(d, "c", 10'000);
    CHECK(r.size() <= 10'000);
    REQUIRE(r.key);
    CHECK(r.key->size() > 0);
    CHECK(r.key->size() < d.key->size());
    const auto h = by_name(r);
    CHECK(h.at("__sluice.truncated.part") == "value,headers,key");
    CHECK(h.at("__sluice.reason") == d.reason);  // the reason stays whole
  }
}

TEST_CASE("a reason too long for the budget is cut last, in both its headers") {
  dead_letter d = letter(10, 0);
  d.reason = std::string(100'000, 'r');
  const dead_letter_record r = make_dead_letter_record(d, "c", 20'000);
  CHECK(r.size() <= 20'000);
  const auto h = by_name(r);
  CHECK(h.at("__sluice.truncated.part") == "value,headers,reason");
  CHECK(h.at("__sluice.reason").size() > 9'000);
  CHECK(h.at("__sluice.reason") == h.at("__connect.errors.exception.message"));
}

TEST_CASE("whatever the budget, the record fits it once the fixed headers do") {
  const dead_letter d = letter(70'000, 3'000);
  const size_t fixed = make_dead_letter_record(d, "c", 0).size();
  for (size_t budget = fixed; budget < 80'000; budget += 997) {
    CAPTURE(budget);
    const dead_letter_record r = make_dead_letter_record(d, "c", budget);
    CHECK(r.size() <= budget);
  }
}

TEST_CASE("null keys and values stay null, cut or not") {
  dead_letter d = letter(0);
  d.key.reset();
  d.value.reset();
  d.reason = std::string(5'000, 'r');
  CHECK_FALSE(make_dead_letter_record(d, "", 1'000'000).key);
  const dead_letter_record cut = make_dead_letter_record(d, "", 2'000);
  CHECK_FALSE(cut.key);
  CHECK_FALSE(cut.value);
  CHECK(by_name(cut).at("__sluice.truncated.part") == "headers,reason");
}

namespace sluice {

TEST_CASE("a dead letter about a table says its kind and target in its headers") {
  dead_letter d;
  d.reason = "shop.orders: cannot create or evolve the table";
  d.kind = dead_letter_kind::ddl_failed;
  d.target_schema = "shop";
  d.target_table = "orders";
  d.value = std::string("{}");
  std::map<std::string, std::string> h;
  for (const auto& header : make_dead_letter_record(d, "orders-sink", 1'000'000).headers)
    h[header.name] = header.value.value_or("<null>");
  CHECK(h.at("__sluice.kind") == "ddl_failed");
  CHECK(h.at("__sluice.target") == "shop.orders");
}

}  // namespace sluice
