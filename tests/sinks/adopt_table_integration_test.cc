// A replica table another sink built (Debezium's or Confluent's JDBC sink: the stream's columns
// and a primary key, none of sluice's), adopted in place against a real server (CTest
// "sinks.batch_applier", label integration; issue 28): sluice adds its own columns whatever
// auto.evolve says, and every guard treats the adopted rows' NULL CSN as older than any change,
// so they are updated, deleted and truncated like sluice's own. One test per guard: each fails
// if that guard compares a NULL CSN without saying what it means (NULL < x is NULL, not true).
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

// The table as a JDBC sink creates it (primary.key.mode=record_key, or none without a key),
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

// name || qty of a row, or nothing when the row is gone.
std::optional<std::string> row(pg_world& w, int id) {
  return w.one("SELECT name || qty FROM " + w.target("orders") +
               " WHERE id = " + std::to_string(id));
}

change truncate_at(table_entry* t, int64_t csn_n) {
  change c;
  c.op = op_kind::truncate;
  c.table = t;
  c.seq = seq(csn_n);
  return c;
}

change partial_upsert(pg_world& w, table_entry* t, int64_t id, int64_t csn_n, image img) {
  change c = w.upsert(t, id, csn_n, std::move(img));
  c.partial = true;  // a column-level write: the columns it omits keep their values
  return c;
}

TEST_CASE("adopting: sluice's columns are added under auto.evolve off, the rows keep NULL CSNs") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s =
      sink.apply(w.merge({w.upsert(t, 9, 1, {{"name", value::string("new")}})}), {}, {});
  CHECK(s.rejected == 0);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w)) == 0);
  CHECK(w.count("SELECT count(*) FROM pg_attribute WHERE attrelid = '" + w.target("orders") +
                "'::regclass AND attname IN ('_sluice_csn', '_sluice_updated_at') AND NOT "
                "attisdropped") == 2);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE _sluice_csn IS NULL") == 4);
}

// upsert_sql's guard (write_sql.cc): a full image replaces an adopted row.
TEST_CASE("upsert guard: a full image replaces an adopted row, whose NULL CSN is older") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s = sink.apply(
      w.merge({w.upsert(t, 1, 1, {{"name", value::string("a2")}, {"qty", value::number("11")}})}),
      {}, {});
  CHECK(s.stale == 0);
  CHECK(row(w, 1) == "a211");
  CHECK(row(w, 4) == "d40");  // untouched
  // Now the row has a CSN: an older image is refused as for any row sluice wrote.
  sink.apply(w.merge({w.upsert(t, 1, 0, {{"name", value::string("old")}})}), {}, {});
  CHECK(row(w, 1) == "a211");
}

// delete_sql's guard and its tombstone: an adopted row is deleted, and stays deleted.
TEST_CASE("delete guard: an adopted row is deleted and its tombstone keeps older upserts out") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s = sink.apply(w.merge({w.remove(t, 2, 5)}), {}, {});
  CHECK(s.deleted == 1);
  CHECK(s.stale == 0);
  CHECK_FALSE(row(w, 2));
  sink.apply(w.merge({w.upsert(t, 2, 4, {{"name", value::string("late")}})}), {}, {});
  CHECK_FALSE(row(w, 2));
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 3);
}

// upsert_versioned_sql's per-column guard (column_csn_sql.cc): an adopted row has no column
// CSN map and no row CSN, and each of its columns reads as never set.
TEST_CASE("column-level guard: a partial image writes its columns of an adopted row") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  const apply_stats s =
      sink.apply(w.merge({partial_upsert(w, t, 3, 1, {{"qty", value::number("33")}})}), {}, {});
  CHECK(s.stale == 0);
  CHECK(row(w, 3) == "c33");  // name kept, qty written
  // The row's CSN is now the partial image's, and an older column write is refused.
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") +
                " WHERE id = 3 AND _sluice_csn IS NOT NULL") == 1);
  sink.apply(w.merge({partial_upsert(w, t, 3, 0, {{"qty", value::number("0")}})}), {}, {});
  CHECK(row(w, 3) == "c33");
  // A full image of another adopted row, now on the column-CSN path, replaces it too.
  sink.apply(w.merge({w.upsert(t, 1, 2, {{"name", value::string("a2")}, {"qty", value::null()}})}),
             {}, {});
  CHECK(row(w, 1) == std::nullopt);  // name || NULL
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 1") == "a2");
}

// delete_sql on a table keeping column CSNs (its delete and clear steps, column_csn_sql.cc).
TEST_CASE("delete guard with column CSNs: an adopted row is deleted") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  sink.apply(w.merge({partial_upsert(w, t, 3, 1, {{"qty", value::number("33")}})}), {}, {});
  const apply_stats s = sink.apply(w.merge({w.remove(t, 2, 5), w.remove(t, 3, 5)}), {}, {});
  CHECK(s.deleted == 2);
  CHECK_FALSE(row(w, 2));
  CHECK_FALSE(row(w, 3));
  CHECK(row(w, 4) == "d40");
}

// remove_rows' soft variant and the soft upsert guard (sql_fragments.cc, write_sql.cc).
TEST_CASE("soft-delete guards: an adopted row is marked deleted, another replaced") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  apply_options o = adopting(w);
  o.deletes = apply_delete_mode::soft;
  test_sink sink(w.dsn, o);
  const apply_stats s = sink.apply(
      w.merge({w.remove(t, 2, 5),
               w.upsert(t, 1, 5, {{"name", value::string("a2")}, {"qty", value::number("11")}})}),
      {}, {});
  CHECK(s.deleted == 1);
  CHECK(s.stale == 0);
  CHECK(w.one("SELECT _sluice_deleted FROM " + w.target("orders") + " WHERE id = 2") == "t");
  CHECK(w.one("SELECT name || qty || _sluice_deleted FROM " + w.target("orders") +
              " WHERE id = 1") == "a211false");
  // The column sluice added reads false on the rows the connector wrote.
  CHECK(w.one("SELECT _sluice_deleted FROM " + w.target("orders") + " WHERE id = 4") == "f");
}

// truncate_sql's guard: rows older than the truncate go, a NULL CSN being the oldest.
TEST_CASE("truncate guard: a truncate removes an adopted table's rows") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  sink.apply(w.merge({w.upsert(t, 5, 100, {{"name", value::string("new")}})}), {}, {});
  const apply_stats s = sink.apply(w.merge({truncate_at(t, 50)}), {}, {});
  CHECK(s.truncates_applied == 1);
  // Rows 1..4 (NULL CSN) go; row 5, written after the truncate, stays.
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 5") == 1);
}

TEST_CASE("truncate guard with column CSNs: a truncate removes an adopted table's rows") {
  pg_world w;
  jdbc_sink_table(w);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));
  sink.apply(w.merge({partial_upsert(w, t, 5, 100, {{"name", value::string("new")}})}), {}, {});
  const apply_stats s = sink.apply(w.merge({truncate_at(t, 50)}), {}, {});
  CHECK(s.truncates_applied == 1);
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
  const apply_stats s = sink.apply(
      w.merge({w.upsert(t, 1, 1, {{"name", value::string("a2")}}), w.remove(t, 2, 1)}), {}, {});
  CHECK(s.rejected == 2);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) + " WHERE kind = 'rejected' AND " +
                "reason LIKE '%orders has no primary key%add PRIMARY KEY (id) to adopt it%'") == 2);
  CHECK(row(w, 1) == "a10");
  CHECK(row(w, 2) == "b20");
}

TEST_CASE("keyless changes are appended to an adopted table without a primary key") {
  pg_world w;
  jdbc_sink_table(w, /*with_key=*/false);
  table_entry* t = w.table("orders");
  test_sink sink(w.dsn, adopting(w));  // keyless: append, the default
  change c;
  c.table = t;
  c.after = {{"id", value::number("7")}, {"name", value::string("g")}};
  c.seq = seq(1);
  const apply_stats s = sink.apply(w.merge({c}), {}, {});
  CHECK(s.appended == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 5);
  CHECK(w.one("SELECT _sluice_op FROM " + w.target("orders") + " WHERE id = 7") == "upsert");
}

}  // namespace
}  // namespace sluice
