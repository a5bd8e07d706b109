// A replica table another sink built (Debezium's or Confluent's JDBC sink: the stream's columns
// and a primary key, none of sluice's), adopted in place against a real server (CTest
// "sinks.test_sink", label integration; issue 28): sluice adds its own columns whatever
// auto.evolve says, and every guard treats the adopted rows' NULL CSN as older than any
// change, so they are updated, deleted and truncated like sluice's own.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::pg_world;
using testing::seq;

// The table as a JDBC sink creates it (schema.evolution=basic, primary.key.mode=record_key),
// holding rows 1..4 it wrote.
void jdbc_sink_table(pg_world& w, bool with_key = true) {
  pqxx::work tx(w.look);
  tx.exec("SET client_min_messages TO warning");
  tx.exec("CREATE SCHEMA " + tx.quote_name(w.source_schema));
  tx.exec("CREATE TABLE " + w.target("orders") + " (id bigint" +
          (with_key ? " PRIMARY KEY" : " NOT NULL") + ", name text, qty bigint)");
  tx.exec("INSERT INTO " + w.target("orders") +
          " VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)");
  tx.commit();
}

apply_options adopting(const pg_world& w) {
  apply_options o = w.options();
  o.auto_evolve = false;  // the importer's mapping of schema.evolution=none
  o.truncate_enabled = true;
  return o;
}

std::string dead_letters(const pg_world& w) {
  return "\"" + w.state + "\".dead_letters";
}

TEST_CASE("an adopted table's rows are updated and deleted: a NULL CSN is older than any") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  change partial = w.upsert(t, 3, 1, {{"qty", value::number("33")}});
  partial.partial = true;  // a column-level write: name keeps the adopted value
  const apply_stats s = sink.apply(
      w.merge({w.upsert(t, 1, 1, {{"name", value::string("a2")}, {"qty", value::number("11")}}),
               w.remove(t, 2, 1), partial}),
      {}, {});
  CHECK(s.rejected == 0);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w)) == 0);
  CHECK(w.one("SELECT name || qty FROM " + w.target("orders") + " WHERE id = 1") == "a211");
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 2") == 0);
  CHECK(w.one("SELECT name || qty FROM " + w.target("orders") + " WHERE id = 3") == "c33");
  // Row 4, untouched, keeps its NULL CSN; sluice's columns were added beside the stream's.
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") +
                " WHERE id = 4 AND _sluice_csn IS NULL") == 1);
  // The delete's tombstone still keeps a late, older upsert of row 2 out.
  sink.apply(w.merge({w.upsert(t, 2, 0, {{"name", value::string("late")}})}), {}, {});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 2") == 0);
}

TEST_CASE("a truncate removes an adopted table's rows, a NULL CSN being the oldest") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  sink.apply(w.merge({w.upsert(t, 5, 100, {{"name", value::string("new")}})}), {}, {});
  change trunc;
  trunc.op = op_kind::truncate;
  trunc.table = t;
  trunc.seq = seq(50);
  const apply_stats s = sink.apply(w.merge({trunc}), {}, {});
  CHECK(s.truncates_applied == 1);
  // Rows 1..4 (NULL CSN) go; row 5, written after the truncate, stays.
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 5") == 1);
}

TEST_CASE("a stream column the adopted table lacks still needs auto.evolve") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s =
      sink.apply(w.merge({w.upsert(t, 1, 1, {{"colour", value::string("red")}})}), {}, {});
  CHECK(s.rejected == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%lacks column colour and auto.evolve is off%'") == 1);
}

TEST_CASE("an adopted table without a primary key is refused for keyed changes, saying why") {
  pg_world w;
  jdbc_sink_table(w, /*with_key=*/false);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s =
      sink.apply(w.merge({w.upsert(t, 1, 1, {{"name", value::string("a2")}})}), {}, {});
  CHECK(s.rejected == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%has no primary key%add PRIMARY KEY (id) to adopt it%'") == 1);
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 1") == "a");
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST_CASE("${topic} in table.name.format routes keyed tables by the topic they came on") {
  testing::pg_world w;
  apply_options o = w.options();
  o.routing.name_format = "${topic}";  // a Connect sink's default: the table named by topic
  test_sink sink(w.dsn, o);
  table_entry* t = w.table("orders");
  change c = w.upsert(t, 1, 1, {{"name", value::string("a")}});
  c.source.origin.topic = w.source_schema + ".by_topic";
  change gone = w.remove(t, 2, 1);
  gone.source.origin.topic = w.source_schema + ".by_topic";
  const apply_stats s = sink.apply(w.merge({c, gone}), {}, {});
  CHECK(s.rejected == 0);
  CHECK(w.count("SELECT count(*) FROM " + w.target("by_topic")) == 1);
}

}  // namespace
}  // namespace sluice
