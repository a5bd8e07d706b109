#include "core/catalog/table_router.h"

#include "core/catalog/table_catalog.h"

#include <doctest/doctest.h>

namespace sluice {

TEST_CASE("tables route by table.name.format, lower-cased by default") {
  table_router r({});
  auto t = r.route({"", "ROOT", "SAMPLE"}, "cdc.orders");
  REQUIRE(t.ok());
  CHECK(t->schema == "root");
  CHECK(t->name == "sample");
}

TEST_CASE("${schema} is the database where the source has no schema (MySQL)") {
  table_router r({});
  auto t = r.route({"shop", "", "Orders"}, "t");
  REQUIRE(t.ok());
  CHECK(t->schema == "shop");
  CHECK(t->name == "orders");
}

TEST_CASE("an explicit tables.<source>.target wins and preserve keeps the case") {
  routing_options o;
  o.lower_case = false;
  o.explicit_targets["ROOT.SAMPLE"] = "replica.Sample";
  o.name_format = "${topic}_${table}";
  table_router r(o);
  auto t = r.route({"", "ROOT", "SAMPLE"}, "x");
  REQUIRE(t.ok());
  CHECK(t->schema == "replica");
  CHECK(t->name == "Sample");
  auto u = r.route({"", "ROOT", "OTHER"}, "x");
  REQUIRE(u.ok());
  CHECK(u->schema == "public");
  CHECK(u->name == "x_OTHER");
}

TEST_CASE("names over the target's limit are an error, not a truncation") {
  routing_options o;
  o.max_identifier_bytes = 63;
  table_router r(o);
  const auto long_table = r.route({"", "s", std::string(64, 'a')}, "t");
  REQUIRE_FALSE(long_table.ok());
  CHECK(long_table.err().message.find("longer than 63 bytes") != std::string::npos);
  CHECK(r.route({"", "s", std::string(63, 'a')}, "t").ok());
  CHECK_FALSE(r.column(std::string(64, 'c')).ok());
  // Core knows no database's limit: without one, only empty names and NUL bytes are refused.
  table_router unlimited({});
  CHECK(unlimited.route({"", "s", std::string(200, 'a')}, "t").ok());
  CHECK_FALSE(unlimited.column("").ok());
}

}  // namespace sluice

namespace sluice {

TEST_CASE("a configured ROOT.SAMPLE names the Oracle table DB1.ROOT.SAMPLE") {
  table_name oracle{"DB1", "ROOT", "SAMPLE"};
  CHECK(oracle.matches("DB1.ROOT.SAMPLE"));
  CHECK(oracle.matches("ROOT.SAMPLE"));
  CHECK(oracle.matches("DB1.SAMPLE"));
  CHECK_FALSE(oracle.matches("SAMPLE"));
  CHECK_FALSE(oracle.matches("OTHER.SAMPLE"));
  routing_options o;
  o.explicit_targets["ROOT.SAMPLE"] = "root.sample_replica";
  auto t = table_router(o).route(oracle, "t");
  REQUIRE(t.ok());
  CHECK(t->name == "sample_replica");
  table_catalog catalog;
  catalog.configure_key("ROOT.SAMPLE", {"THIS_IS_MY_PK"});
  CHECK(catalog.intern(oracle)->key_columns == std::vector<std::string>{"THIS_IS_MY_PK"});
  CHECK(catalog.intern(oracle)->key_configured);
}

}  // namespace sluice

namespace sluice {

// Debezium JDBC sink 3.x (collection.name.format) and Confluent's JDBC sink
// (table.name.format): a replica either built must be found in place (issue 28).
TEST_CASE("table.name.style debezium names tables as Debezium's JDBC sink does") {
  routing_options o;
  o.style = name_style::debezium;
  o.name_format = "${topic}";
  const table_name orders{"inventory", "public", "Orders"};
  // The topic's dots become `_`; no dot left: the default schema.
  auto t = table_router(o).route(orders, "dbserver1.public.orders");
  REQUIRE(t.ok());
  CHECK(t->schema == "public");
  CHECK(t->name == "dbserver1_public_orders");
  // Dots written in the format qualify; the source placeholders.
  o.name_format = "${source.schema}.${source.table}";
  t = table_router(o).route(orders, "dbserver1.public.orders");
  REQUIRE(t.ok());
  CHECK(t->schema == "public");
  CHECK(t->name == "orders");  // quote.identifiers=false: folded (identifier.case lower)
  o.name_format = "archive.${source.db}_${source.table}";
  t = table_router(o).route(orders, "x");
  REQUIRE(t.ok());
  CHECK(t->schema == "archive");
  CHECK(t->name == "inventory_orders");
  // A catalog part (the database connected to) is dropped; four parts cannot be a table.
  o.name_format = "replica.${source.schema}.${source.table}";
  t = table_router(o).route(orders, "x");
  REQUIRE(t.ok());
  CHECK(t->schema == "public");
  CHECK(t->name == "orders");
  o.name_format = "a.b.c.${source.table}";
  CHECK_FALSE(table_router(o).route(orders, "x").ok());
}

TEST_CASE("table.name.style confluent keeps the topic whole and parses its dots") {
  routing_options o;
  o.style = name_style::confluent;
  o.name_format = "${topic}";
  o.lower_case = false;  // quote.sql.identifiers=always: the case is kept
  const table_name orders{"", "public", "orders"};
  auto t = table_router(o).route(orders, "Orders");
  REQUIRE(t.ok());
  CHECK(t->schema == "public");
  CHECK(t->name == "Orders");
  // A Debezium topic (server.schema.table): the server is taken for a catalog and dropped.
  t = table_router(o).route(orders, "dbserver1.inventory.customers");
  REQUIRE(t.ok());
  CHECK(t->schema == "inventory");
  CHECK(t->name == "customers");
  o.name_format = "kafka_${topic}";
  t = table_router(o).route(orders, "orders");
  REQUIRE(t.ok());
  CHECK(t->schema == "public");
  CHECK(t->name == "kafka_orders");
}

}  // namespace sluice
