#include "schemas/debezium/debezium_type_cache.h"

#include <doctest/doctest.h>

#include <vector>

namespace sluice {
namespace {

std::vector<connect_field_schema> schema(std::string_view name_type) {
  connect_field_schema id;
  id.field = "id";
  id.type = "int64";
  connect_field_schema name;
  name.field = "name";
  name.type = "string";
  name.source_type = name_type;
  name.source_length = 80;
  return {id, name};
}

}  // namespace

TEST_CASE("Debezium type cache: a repeated schema is mapped once, its types shared") {
  debezium_type_cache cache;
  table_entry orders;
  const auto first = cache.types_of(&orders, schema("VARCHAR"));
  REQUIRE(first != nullptr);
  CHECK(first->find("name")->type.to_text() == "string(80)");
  for (int i = 0; i < 3; ++i) {
    const auto fields = schema("VARCHAR");  // the same schema, from another message
    CHECK(cache.types_of(&orders, fields).get() == first.get());
  }
  CHECK(cache.builds() == 1);
}

TEST_CASE("Debezium type cache: tables have their own types, a changed schema new ones") {
  debezium_type_cache cache;
  table_entry orders;
  table_entry items;
  const auto a = cache.types_of(&orders, schema("VARCHAR"));
  const auto b = cache.types_of(&items, schema("TEXT"));
  CHECK(a.get() != b.get());
  CHECK(b->find("name")->type.to_text() == "string");
  CHECK(cache.types_of(&orders, schema("VARCHAR")).get() == a.get());
  CHECK(cache.types_of(&items, schema("TEXT")).get() == b.get());
  CHECK(cache.builds() == 2);

  // Another schema saying the same types keeps the pointer (one more mapping).
  auto same_types = schema("VARCHAR");
  same_types[1].source_scale = 0;
  CHECK(cache.types_of(&orders, same_types).get() == a.get());
  CHECK(cache.builds() == 3);
  CHECK(cache.types_of(&orders, same_types).get() == a.get());
  CHECK(cache.builds() == 3);

  const auto c = cache.types_of(&orders, schema("BPCHAR"));
  CHECK(c.get() != a.get());
  CHECK(c->find("name")->source_type == "BPCHAR(80)");
  CHECK(a->find("name")->source_type == "VARCHAR(80)");  // changes made before keep theirs
}

TEST_CASE("Debezium type cache: no schema, no types") {
  debezium_type_cache cache;
  table_entry orders;
  CHECK(cache.types_of(&orders, {}) == nullptr);
  CHECK(cache.builds() == 0);
}

}  // namespace sluice
