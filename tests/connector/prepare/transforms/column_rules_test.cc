// column_rules (issue 28), the engine of fields.* and ReplaceField, on a change that carries
// column types (Debezium, Avro and GoldenGate do; Datastream JSON does not): the types
// auto.create and auto.evolve read lose the excluded columns and take the renames, built once
// per schema rather than per change; include keeps the key's columns whether named or not.
#include "connector/prepare/transforms/column_rules.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

using namespace sluice;

namespace {

change typed_change(const shared_column_types& types) {
  change c;
  c.key.columns = {"id"};
  for (const char* name : {"id", "qty", "note", "secret"})
    c.after.push_back(column_value{name, {}});
  c.types = types;
  return c;
}

shared_column_types schema() {
  auto t = std::make_shared<column_types>();
  for (const char* name : {"id", "qty", "note", "secret"})
    t->columns.push_back({name, {}, ""});
  return t;
}

std::vector<std::string> type_names(const change& c) {
  std::vector<std::string> out;
  for (const column_types::column& col : c.types->columns)
    out.push_back(col.name);
  return out;
}

std::vector<std::string> value_names(const change& c) {
  std::vector<std::string> out;
  for (const column_value& v : c.after)
    out.push_back(v.name);
  return out;
}

}  // namespace

TEST_CASE("column types lose the excluded columns and take the renames, once per schema") {
  column_rules rules({}, {"secret"}, {{"note", "remark"}}, "transforms.fields");
  const shared_column_types types = schema();
  change first = typed_change(types);
  REQUIRE_FALSE(rules.apply(first));
  CHECK(value_names(first) == std::vector<std::string>{"id", "qty", "remark"});
  CHECK(type_names(first) == std::vector<std::string>{"id", "qty", "remark"});
  CHECK(types->columns.size() == 4);  // the decoder's own schema is never changed
  change second = typed_change(types);
  REQUIRE_FALSE(rules.apply(second));
  CHECK(second.types == first.types);  // the same schema: the same rebuilt types
}

TEST_CASE("include keeps the key's columns without naming them") {
  column_rules rules({"qty"}, {}, {}, "fields");
  change c = typed_change(schema());
  REQUIRE_FALSE(rules.apply(c));
  CHECK(value_names(c) == std::vector<std::string>{"id", "qty"});
  CHECK(type_names(c) == std::vector<std::string>{"id", "qty"});
}

TEST_CASE("many tables' schemas through one ReplaceField are each rebuilt once") {
  column_rules rules({}, {"secret"}, {}, "transforms.fields");
  std::vector<shared_column_types> schemas;
  for (int i = 0; i < 500; ++i)
    schemas.push_back(schema());
  std::vector<shared_column_types> rebuilt;
  for (const shared_column_types& s : schemas) {
    change c = typed_change(s);
    REQUIRE_FALSE(rules.apply(c));
    rebuilt.push_back(c.types);
  }
  for (size_t i = 0; i < schemas.size(); ++i) {  // a second round: every one from the cache
    change c = typed_change(schemas[i]);
    REQUIRE_FALSE(rules.apply(c));
    CHECK(c.types == rebuilt[i]);
  }
}
