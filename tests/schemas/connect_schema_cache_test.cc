#include "schemas/debezium/connect_schema_cache.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace sluice {

TEST_CASE("connect_schema_cache: a block found by its exact bytes, with text of its own") {
  connect_schema_cache cache(2);
  auto text = std::make_unique<std::string>("idint64price");
  connect_field_schema id;
  id.field = std::string_view(*text).substr(0, 2);
  id.type = std::string_view(*text).substr(2, 5);
  connect_field_schema price;
  price.field = std::string_view(*text).substr(7, 5);
  price.scale = 2;
  const std::vector<connect_field_schema> columns{id, price};
  const std::string block = R"({"fields":[…]})";
  cache.insert(block, columns);
  text.reset();  // the parser's buffers are gone: the entry's columns must not point there

  const std::vector<connect_field_schema>* found = cache.find(std::string(block));
  REQUIRE(found != nullptr);
  REQUIRE(found->size() == 2);
  CHECK((*found)[0].field == "id");
  CHECK((*found)[0].type == "int64");
  CHECK((*found)[1].field == "price");
  CHECK((*found)[1].scale == 2);
  CHECK(cache.find(block.substr(0, block.size() - 1)) == nullptr);  // a prefix is not it
  CHECK(cache.find(block + " ") == nullptr);
}

TEST_CASE("connect_schema_cache: past its capacity the least recently used block goes") {
  connect_schema_cache cache(2);
  connect_field_schema f;
  f.field = "a";
  cache.insert("A", std::vector<connect_field_schema>{f});
  cache.insert("B", std::vector<connect_field_schema>{f});
  CHECK(cache.find("A") != nullptr);  // A is now the newest
  cache.insert("C", std::vector<connect_field_schema>{f});
  CHECK(cache.size() == 2);
  CHECK(cache.find("B") == nullptr);
  CHECK(cache.find("A") != nullptr);
  CHECK(cache.find("C") != nullptr);
}

}  // namespace sluice
