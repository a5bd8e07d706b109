#include <doctest/doctest.h>

#include <string>

#include "connector/config/config.h"
#include "connector/config/config_loader.h"

// transforms and field rules as configuration (issue 28): Connect's keys, nested or flat,
// refused at load with the line and column of what is wrong.

using namespace sluice;

namespace {

const std::string minimal = R"yaml(name: t
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
)yaml";  // 6 lines: what a test appends starts on line 7

load_result load(const std::string& extra) {
  return load_config(minimal + extra,
                     [](std::string_view) { return std::optional<std::string>(); });
}

const config_error* error_for(const load_result& r, const std::string& key) {
  if (r.ok()) return nullptr;
  for (const auto& e : r.errors()) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("transforms run in the list's order, or in the file's without a list") {
  const load_result nested = load(
      "transforms:\n"
      "  second:\n"
      "    type: ReplaceField\n"
      "    exclude: [a]\n"
      "  first:\n"
      "    type: RegexRouter\n"
      "    regex: \"(.*)\"\n"
      "    replacement: \"x_$1\"\n");
  REQUIRE_MESSAGE(nested.ok(), nested.error_text());
  CHECK(nested.value().transforms == std::vector<std::string>{"second", "first"});
  CHECK(nested.value().transform_settings.at("first").replacement == "x_$1");
  const load_result flat = load(
      "transforms: first,second\n"
      "transforms.second.type: ReplaceField\n"
      "transforms.second.whitelist: [a, b]\n"
      "transforms.first.type: RegexRouter\n"
      "transforms.first.regex: \"(.*)\"\n"
      "transforms.first.replacement: \"x_$1\"\n");
  REQUIRE_MESSAGE(flat.ok(), flat.error_text());
  CHECK(flat.value().transforms == std::vector<std::string>{"first", "second"});
  CHECK(flat.value().transform_settings.at("second").whitelist ==
        std::vector<std::string>{"a", "b"});
  // describe() writes them flat, and what it writes loads back the same.
  const std::string described = describe(flat.value());
  CHECK(contains(described, "transforms.first.type: RegexRouter"));
  const load_result again =
      load_config(described, [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(again.ok(), again.error_text());
  CHECK(again.value().transforms == flat.value().transforms);
}

TEST_CASE("an unknown transform type is an error at its line naming the known ones") {
  const load_result r = load(
      "transforms:\n"
      "  a:\n"
      "    type: Flatten\n"
      "  b:\n"
      "    type: com.example.ByLogicalTableRouter\n"
      "  c:\n"
      "    type: org.apache.kafka.connect.transforms.ReplaceField$Key\n");
  REQUIRE_FALSE(r.ok());
  const config_error* a = error_for(r, "transforms.a.type");
  REQUIRE(a != nullptr);
  CHECK(a->line == 9);
  CHECK(a->column == 11);
  CHECK(contains(a->message, "known: RegexRouter"));
  CHECK(contains(a->message, "ReplaceField"));
  const config_error* b = error_for(r, "transforms.b.type");
  REQUIRE(b != nullptr);
  CHECK(b->line == 11);
  // Debezium's transform, named outside its package.
  CHECK(contains(b->message, "unknown transform type"));
  const config_error* c = error_for(r, "transforms.c.type");
  REQUIRE(c != nullptr);
  CHECK(contains(c->message, "ReplaceField$Key is not supported"));
}

TEST_CASE("a transform's settings are checked against its type, at their lines") {
  const load_result r = load(
      "transforms: [route, fields, ghost]\n"
      "transforms.route.type: RegexRouter\n"
      "transforms.route.regex: \"(a)(b)\"\n"
      "transforms.route.replacement: \"$3\"\n"
      "transforms.fields.type: ReplaceField\n"
      "transforms.fields.include: [x]\n"
      "transforms.fields.whitelist: [y]\n"
      "transforms.fields.regex: \"x\"\n"
      "transforms.unlisted.type: ReplaceField\n"
      "transforms.norule.type: RegexRouter\n");
  REQUIRE_FALSE(r.ok());
  const config_error* replacement = error_for(r, "transforms.route.replacement");
  REQUIRE(replacement != nullptr);
  CHECK(replacement->line == 10);
  CHECK(contains(replacement->message, "$3 names no group: the regex has 2 capturing groups"));
  const config_error* whitelist = error_for(r, "transforms.fields.whitelist");
  REQUIRE(whitelist != nullptr);
  CHECK(whitelist->line == 13);
  CHECK(contains(whitelist->message, "give one"));
  const config_error* regex = error_for(r, "transforms.fields.regex");
  REQUIRE(regex != nullptr);
  CHECK(contains(regex->message, "is not a setting of ReplaceField"));
  const config_error* list = error_for(r, "transforms");
  REQUIRE(list != nullptr);
  CHECK(list->line == 7);
  CHECK(contains(list->message, "ghost has no settings"));
  const config_error* unlisted = error_for(r, "transforms.unlisted");
  REQUIRE(unlisted != nullptr);
  CHECK(unlisted->line == 15);
  CHECK(contains(unlisted->message, "never run"));
  const config_error* norule = error_for(r, "transforms.norule.regex");
  REQUIRE(norule != nullptr);
  CHECK(contains(norule->message, "required by RegexRouter"));
}

TEST_CASE("excluding a configured key column is an error at load, after the renames before it") {
  const load_result r = load(
      "tables:\n"
      "  public.orders:\n"
      "    primary.key.fields: [id]\n"
      "    fields.exclude: [order_id]\n"
      "transforms:\n"
      "  rename:\n"
      "    type: ReplaceField\n"
      "    renames: [\"id:order_id\"]\n");
  REQUIRE_FALSE(r.ok());
  const config_error* e = error_for(r, "tables.\"public.orders\".fields.exclude");
  REQUIRE(e != nullptr);
  CHECK(e->line == 10);
  CHECK(contains(e->message, "excludes order_id, a key column of public.orders"));
  // Excluding the old name after the rename is no key column any more.
  const load_result fine = load(
      "tables:\n"
      "  public.orders:\n"
      "    primary.key.fields: [id]\n"
      "fields.exclude: [id]\n"
      "transforms:\n"
      "  rename:\n"
      "    type: ReplaceField\n"
      "    renames: [\"id:order_id\"]\n");
  CHECK_MESSAGE(fine.ok(), fine.error_text());
  const load_result dropped = load(
      "tables:\n"
      "  public.orders:\n"
      "    primary.key.fields: [id]\n"
      "transforms:\n"
      "  drop:\n"
      "    type: ReplaceField\n"
      "    blacklist: [id]\n");
  REQUIRE_FALSE(dropped.ok());
  const config_error* d = error_for(dropped, "transforms.drop.blacklist");
  REQUIRE(d != nullptr);
  CHECK(d->line == 13);
}
