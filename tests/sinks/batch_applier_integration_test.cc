// Integration tests of the PostgreSQL applier against a real server (CTest label
// "integration"). The server's DSN comes from SLUICE_TEST_PG_DSN, else from the harness's
// $SLUICE_RUN_DIR/postgres.dsn (integration/services/postgres.sh); without either every test
// fails. Each test works in schemas of its own, so the database may be shared.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "sinks/postgres/session/state_schema.h"
#include "tests/sinks/pg_test_env.h"
#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::test_dsn;
using testing::unique_name;
using testing::with_application_name;

using testing::key_of;
using testing::pg_world;
using testing::seq;

TEST_CASE("auto-create, then insert, update and delete a row") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");

  apply_stats s =
      applier.apply(w.merge({w.upsert(orders, 1, 10, {{"name", value::string("first")}})}), {}, {});
  CHECK(s.upserted == 1);
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 1") == "first");
  // The table was created from the value kinds, keyed by id, with sluice's columns.
  CHECK(w.one("SELECT data_type FROM information_schema.columns WHERE table_schema = '" +
              w.source_schema + "' AND table_name = 'orders' AND column_name = 'id'") == "numeric");
  CHECK(w.count("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" +
                w.source_schema + "' AND column_name IN ('_sluice_csn', '_sluice_updated_at')") ==
        2);

  s = applier.apply(w.merge({w.upsert(orders, 1, 11, {{"name", value::string("second")}})}), {},
                    {});
  CHECK(s.upserted == 1);
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 1") == "second");

  s = applier.apply(w.merge({w.remove(orders, 1, 12)}), {}, {});
  CHECK(s.deleted == 1);
  CHECK(s.tombstones == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);
  CHECK(w.one("SELECT key_json::text FROM \"" + w.state + "\".tombstones") == R"({"id": 1})");
}

TEST_CASE("a late upsert older than a delete does not bring the row back") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  applier.apply(w.merge({w.upsert(orders, 1, 10, {{"name", value::string("a")}})}), {}, {});
  applier.apply(w.merge({w.remove(orders, 1, 20)}), {}, {});

  const apply_stats s =
      applier.apply(w.merge({w.upsert(orders, 1, 15, {{"name", value::string("late")}})}), {}, {});
  CHECK(s.upserted == 0);
  CHECK(s.stale == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);

  // A newer upsert does bring it back.
  applier.apply(w.merge({w.upsert(orders, 1, 21, {{"name", value::string("again")}})}), {}, {});
  CHECK(w.one("SELECT name FROM " + w.target("orders")) == "again");
}

TEST_CASE("per table, the newest applied source timestamp is kept and never moves back") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  table_entry* items = w.table("items");
  auto at = [](change c, int64_t ms) {
    c.source.source_ts = timestamp_ns{ms * 1'000'000};
    return c;
  };
  const int64_t base = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  applier.apply(
      w.merge({at(w.upsert(orders, 1, 10, {}), base + 5), at(w.upsert(orders, 2, 11, {}), base + 7),
               at(w.upsert(items, 1, 12, {}), base + 1)}),
      {}, {});
  // A later batch of older changes (stale or not) does not move a table's timestamp back.
  applier.apply(w.merge({at(w.upsert(orders, 3, 9, {}), base + 2),
                         at(w.upsert(items, 2, 13, {}), base + 1'500)}),
                {}, {});

  const std::vector<table_progress> p = applier.read_table_progress();
  REQUIRE(p.size() == 2);
  CHECK(p[0].table.name == "items");
  CHECK(p[0].newest_source_ts == "2026-01-01T00:00:01.500000Z");
  CHECK(p[1].table.name == "orders");
  CHECK(p[1].table.schema == w.source_schema);
  CHECK(p[1].newest_source_ts == "2026-01-01T00:00:00.007000Z");
  CHECK(p[1].applied_at.size() == 27);
  // Another connector sees none of it.
  test_sink other(w.dsn, w.options("other"));
  CHECK(other.read_table_progress().empty());
}

TEST_CASE("new keys are copied straight in, a stored key among them falls back to the guards") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  apply_stats s = applier.apply(w.merge({w.upsert(orders, 1, 10, {{"name", value::string("a")}}),
                                         w.upsert(orders, 2, 10, {{"name", value::string("b")}})}),
                                {}, {});
  CHECK(s.upserted == 2);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") +
                " WHERE _sluice_updated_at IS NOT NULL AND _sluice_csn IS NOT NULL") == 2);
  // Key 2 is stored with a newer CSN: the straight COPY fails on it, and the guarded path
  // refuses the older image while key 3 is inserted.
  s = applier.apply(w.merge({w.upsert(orders, 2, 5, {{"name", value::string("old")}}),
                             w.upsert(orders, 3, 11, {{"name", value::string("c")}})}),
                    {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.stale == 1);
  CHECK(w.one("SELECT string_agg(id || '=' || name, ',' ORDER BY id) FROM " + w.target("orders")) ==
        "1=a,2=b,3=c");
  // After a delete the table has tombstones: a late image of the deleted key stays out.
  applier.apply(w.merge({w.remove(orders, 3, 20)}), {}, {});
  s = applier.apply(w.merge({w.upsert(orders, 3, 15, {{"name", value::string("late")}}),
                             w.upsert(orders, 4, 21, {{"name", value::string("d")}})}),
                    {}, {});
  CHECK(s.upserted == 1);
  CHECK(w.one("SELECT string_agg(id || '=' || name, ',' ORDER BY id) FROM " + w.target("orders")) ==
        "1=a,2=b,4=d");
}

TEST_CASE("an update older than the stored one is stale") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  applier.apply(w.merge({w.upsert(orders, 1, 50, {{"name", value::string("new")}})}), {}, {});
  const apply_stats s =
      applier.apply(w.merge({w.upsert(orders, 1, 40, {{"name", value::string("old")}})}), {}, {});
  CHECK(s.stale == 1);
  CHECK(w.one("SELECT name FROM " + w.target("orders")) == "new");

  // The same change again is a no-op too.
  const apply_stats again =
      applier.apply(w.merge({w.upsert(orders, 1, 50, {{"name", value::string("new")}})}), {}, {});
  CHECK(again.upserted == 0);
  CHECK(w.one("SELECT name FROM " + w.target("orders")) == "new");
}

TEST_CASE("an upsert beats a delete at equal CSN, in one batch and across batches") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");

  // One batch: both at CSN 7.
  applier.apply(
      w.merge({w.remove(orders, 1, 7), w.upsert(orders, 1, 7, {{"name", value::string("kept")}})}),
      {}, {});
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 1") == "kept");

  // Delete first, upsert at the same CSN later: the tombstone does not block it.
  applier.apply(w.merge({w.upsert(orders, 2, 1, {{"name", value::string("x")}})}), {}, {});
  applier.apply(w.merge({w.remove(orders, 2, 8)}), {}, {});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 2") == 0);
  applier.apply(w.merge({w.upsert(orders, 2, 8, {{"name", value::string("back")}})}), {}, {});
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 2") == "back");

  // Upsert first, delete at the same CSN later: the row stays.
  applier.apply(w.merge({w.upsert(orders, 3, 9, {{"name", value::string("stays")}})}), {}, {});
  applier.apply(w.merge({w.remove(orders, 3, 9)}), {}, {});
  CHECK(w.one("SELECT name FROM " + w.target("orders") + " WHERE id = 3") == "stays");
}

TEST_CASE("2^63-1 and a 38-digit decimal survive byte for byte") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("numbers");
  const std::string big = "9223372036854775807";
  const std::string wide = "12345678901234567890.123456789012345678";
  change c;
  c.table = t;
  c.key = key_of("id", value::number(big));
  c.after = {{"id", value::number(big)},
             {"wide", value::number(wide)},
             {"negative", value::number("-0.000000000000000000000000000000000001")}};
  c.seq = seq(1);
  applier.apply(w.merge({c}), {}, {});
  CHECK(w.one("SELECT id::text FROM " + w.target("numbers")) == big);
  CHECK(w.one("SELECT wide::text FROM " + w.target("numbers")) == wide);
  CHECK(w.one("SELECT negative::text FROM " + w.target("numbers")) ==
        "-0.000000000000000000000000000000000001");
}

TEST_CASE("text with COPY's separators, escapes and \\N survives byte for byte, new or updated") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("texts");
  const std::string nasty = "tab\there\nnew line\r\\N back\\slash \\x41 \xc3\xa9t\xc3\xa9";
  auto row = [&](int64_t n, const std::string& text) {
    change c;
    c.table = t;
    c.key = key_of("id", value::number("1"));
    c.after = {{"id", value::number("1")}, {"s", value::string(text)}};
    c.seq = seq(n);
    return c;
  };
  // First a new key (straight COPY into the table), then an update (staged, then MERGE).
  applier.apply(w.merge({row(1, nasty)}), {}, {});
  CHECK(w.one("SELECT s FROM " + w.target("texts")) == nasty);
  applier.apply(w.merge({row(2, nasty + "\t2")}), {}, {});
  CHECK(w.one("SELECT s FROM " + w.target("texts")) == nasty + "\t2");
}

TEST_CASE("hostile table and column names create exactly that identifier and run nothing else") {
  pg_world w;
  apply_options o = w.options();
  o.routing.lower_case = false;
  test_sink applier(w.dsn, o);
  {
    pqxx::work tx(w.look);
    tx.exec("CREATE SCHEMA " + tx.quote_name(w.source_schema));
    tx.exec("CREATE TABLE " + w.target("sentinel") + " (x int)");
    tx.commit();
  }
  const std::string table = "we\"ird; DROP TABLE sentinel; --ünï";
  const std::string column = "co\"l; -- ü";
  table_entry* t = w.catalog.intern(table_name{"", w.source_schema, table});
  change c;
  c.table = t;
  c.key = key_of("id", value::number("1"));
  c.after = {{"id", value::number("1")}, {column, value::string("v'); DROP TABLE sentinel; --")}};
  c.seq = seq(1);
  applier.apply(w.merge({c}), {}, {});

  pqxx::work tx(w.look);
  const pqxx::result tables = tx.exec_params(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
      w.source_schema);
  REQUIRE(tables.size() == 2);
  CHECK(tables[0][0].as<std::string>() == "sentinel");
  CHECK(tables[1][0].as<std::string>() == table);
  const pqxx::result cols = tx.exec_params(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND "
      "table_name = $2 AND column_name NOT LIKE '\\_sluice\\_%' ORDER BY ordinal_position",
      w.source_schema, table);
  REQUIRE(cols.size() == 2);
  CHECK(cols[1][0].as<std::string>() == column);
  CHECK(tx.exec1("SELECT " + tx.quote_name(column) + " FROM " + tx.quote_name(w.source_schema) +
                 "." + tx.quote_name(table))[0]
            .as<std::string>() == "v'); DROP TABLE sentinel; --");
}

TEST_CASE("a batch whose offsets compare-and-set fails leaves nothing behind") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  const auto first = applier.claim("cdc.orders", {partition_id(0)});
  REQUIRE(first.size() == 1);
  CHECK(!first[0].next);
  // A new owner claims the partition: the old epoch is now a zombie's.
  const auto second = applier.claim("cdc.orders", {partition_id(0)});
  CHECK(second[0].epoch.value() == first[0].epoch.value() + 1);

  dead_letter dl;
  dl.reason = "undecodable";
  dl.origin = {"cdc.orders", partition_id(0), kafka_offset(3), timestamp_ns(0)};
  const partition_progress zombie{"cdc.orders", partition_id(0), first[0].epoch, kafka_offset(-1),
                                  kafka_offset(10)};
  CHECK(
      applier
          .try_apply(w.merge({w.upsert(orders, 1, 1, {{"n", value::number("1")}})}), {dl}, {zombie})
          .outcome == apply_outcome::stale);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters") == 0);
  CHECK(!w.one("SELECT next_offset FROM \"" + w.state + "\".offsets"));

  // The owner's batch goes through; the next claim resumes after it.
  const partition_progress owner{"cdc.orders", partition_id(0), second[0].epoch, kafka_offset(-1),
                                 kafka_offset(10)};
  applier.apply(w.merge({w.upsert(orders, 1, 1, {{"n", value::number("1")}})}), {dl}, {owner});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);
  const auto third = applier.claim("cdc.orders", {partition_id(0)});
  REQUIRE(third[0].next);
  CHECK(third[0].next->value() == 10);

  // An offset that moved meanwhile fails the compare-and-set too.
  const partition_progress behind{"cdc.orders", partition_id(0), third[0].epoch, kafka_offset(5),
                                  kafka_offset(12)};
  CHECK(applier.try_apply(w.merge({}), {}, {behind}).outcome == apply_outcome::stale);
  const auto offsets = applier.read_offsets();
  REQUIRE(offsets.size() == 1);
  CHECK(offsets[0].next->value() == 10);
}

TEST_CASE("dead letters are written in the batch transaction, with their origin and bytes") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  const auto claimed = applier.claim("cdc.orders", {partition_id(2)});
  dead_letter dl;
  dl.reason = "invalid JSON at byte 3";
  dl.origin = {"cdc.orders", partition_id(2), kafka_offset(41),
               timestamp_ns(1'700'000'000'123'456'000)};
  dl.key = std::string("k\0y", 3);
  dl.value = std::string("{\"broken\"\xff", 10);
  dl.headers = {{"trace", std::string("abc")}, {"bin", std::string("\x01\xfe", 2)}, {"none", {}}};
  const apply_stats s = applier.apply(
      w.merge({}), {dl},
      {{"cdc.orders", partition_id(2), claimed[0].epoch, kafka_offset(-1), kafka_offset(42)}});
  CHECK(s.dead_lettered == 1);
  const std::string t = "\"" + w.state + "\".dead_letters";
  CHECK(w.one("SELECT reason FROM " + t) == "invalid JSON at byte 3");
  CHECK(w.one("SELECT topic || ':' || partition || ':' || kafka_offset FROM " + t) ==
        "cdc.orders:2:41");
  CHECK(w.one("SELECT kafka_timestamp = 'epoch'::timestamptz + interval '1700000000.123456 "
              "seconds' FROM " +
              t) == "t");
  CHECK(w.one("SELECT encode(key, 'hex') FROM " + t) == "6b0079");
  CHECK(w.one("SELECT encode(value, 'hex') FROM " + t) == "7b2262726f6b656e22ff");
  CHECK(
      w.one("SELECT headers::text FROM " + t) ==
      R"([{"key": "trace", "value": "abc"}, {"key": "bin", "value_hex": "01fe"}, {"key": "none", "value": null}])");
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "42");
}

TEST_CASE("a row the database refuses is dead-lettered alone and the rest commits") {
  pg_world w;
  apply_options o = w.options();
  o.column_types[w.source_schema + ".payments"]["amount"] = "numeric(12,2)";
  test_sink applier(w.dsn, o);
  table_entry* t = w.table("payments");
  std::vector<change> changes;
  for (int id = 1; id <= 9; ++id) {
    changes.push_back(w.upsert(
        t, id, 100 + id, {{"amount", id == 6 ? value::string("twelve") : value::number("1.5")}}));
  }
  const auto claimed = applier.claim("cdc.payments", {partition_id(0)});
  const apply_stats s = applier.apply(
      w.merge(std::move(changes)), {},
      {{"cdc.payments", partition_id(0), claimed[0].epoch, kafka_offset(-1), kafka_offset(9)}});
  CHECK(s.upserted == 8);
  CHECK(s.rejected == 1);
  CHECK(s.dead_lettered == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("payments")) == 8);
  CHECK(w.count("SELECT count(*) FROM " + w.target("payments") + " WHERE id = 6") == 0);
  const std::string dl = "\"" + w.state + "\".dead_letters";
  const auto reason = w.one("SELECT reason FROM " + dl);
  REQUIRE(reason);
  CHECK(reason->find("invalid input syntax for type numeric") != std::string::npos);
  CHECK(w.one("SELECT convert_from(key, 'UTF8') FROM " + dl) == R"({"id":6})");
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "9");
}

TEST_CASE("two keys that one target row holds are both applied, newest last") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("codes");
  // The table's key is text; 7 (a number) and "7" (a string) are different keys to the merge
  // but one row to PostgreSQL.
  change text_key;
  text_key.table = t;
  text_key.key = key_of("code", value::string("7"));
  text_key.after = {{"code", value::string("7")}, {"label", value::string("text")}};
  text_key.seq = seq(1);
  applier.apply(w.merge({text_key}), {}, {});
  change number_key = text_key;
  number_key.key = key_of("code", value::number("7"));
  number_key.after = {{"code", value::number("7")}, {"label", value::string("number")}};
  number_key.seq = seq(3);
  text_key.seq = seq(2);
  const apply_stats s = applier.apply(w.merge({text_key, number_key}), {}, {});
  CHECK(s.rejected == 0);
  CHECK(w.one("SELECT label FROM " + w.target("codes")) == "number");
}

TEST_CASE("auto-evolve adds a new column and older rows read NULL there") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("customers");
  applier.apply(w.merge({w.upsert(t, 1, 1, {{"name", value::string("ann")}})}), {}, {});
  applier.apply(w.merge({w.upsert(t, 2, 2,
                                  {{"name", value::string("bob")},
                                   {"vip", value::boolean(true)},
                                   {"tags", value::json(R"(["a", "b"])")}})}),
                {}, {});
  CHECK(w.one("SELECT data_type FROM information_schema.columns WHERE table_schema = '" +
              w.source_schema + "' AND column_name = 'vip'") == "boolean");
  CHECK(w.one("SELECT data_type FROM information_schema.columns WHERE table_schema = '" +
              w.source_schema + "' AND column_name = 'tags'") == "jsonb");
  CHECK(!w.one("SELECT vip FROM " + w.target("customers") + " WHERE id = 1"));
  CHECK(w.one("SELECT vip FROM " + w.target("customers") + " WHERE id = 2") == "t");
  CHECK(w.one("SELECT tags->>1 FROM " + w.target("customers") + " WHERE id = 2") == "b");
}

TEST_CASE("a batch that deletes and re-inserts a key keeps only the new image") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  applier.apply(
      w.merge({w.upsert(t, 1, 1, {{"a", value::string("old")}, {"b", value::string("old")}})}), {},
      {});
  // Delete at 2, re-insert at 3 whose image lacks b: b was last set before the delete.
  change again = w.upsert(t, 1, 3, {{"a", value::string("new")}});
  applier.apply(w.merge({w.remove(t, 1, 2), again}), {}, {});
  CHECK(w.one("SELECT a FROM " + w.target("orders")) == "new");
  CHECK(!w.one("SELECT b FROM " + w.target("orders")));
}

TEST_CASE("truncate: counted only by default, with truncate.enabled older rows go") {
  pg_world w;
  table_entry* t = w.table("orders");
  change trunc;
  trunc.op = op_kind::truncate;
  trunc.table = t;
  trunc.seq = seq(50);
  {
    test_sink applier(w.dsn, w.options());
    applier.apply(w.merge({w.upsert(t, 1, 10, {}), w.upsert(t, 2, 60, {})}), {}, {});
    const apply_stats s = applier.apply(w.merge({trunc}), {}, {});
    CHECK(s.truncates_ignored == 1);
    CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 2);
  }
  apply_options o = w.options();
  o.truncate_enabled = true;
  test_sink applier(w.dsn, o);
  const apply_stats s = applier.apply(w.merge({trunc}), {}, {});
  CHECK(s.truncates_applied == 1);
  CHECK(s.deleted == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);
  // A late upsert from before the truncate does not come back.
  applier.apply(w.merge({w.upsert(t, 3, 40, {})}), {}, {});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 3") == 0);
}

TEST_CASE("keyless tables are appended to with op, CSN and source context") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("events");
  std::vector<change> changes;
  for (int i = 0; i < 3; ++i) {
    change c;
    c.table = t;
    c.after = {{"what", value::string("e" + std::to_string(i))}};
    c.seq = seq(i);
    c.source.tx = "tx1";
    c.source.source_ts = timestamp_ns(1'700'000'000'000'000'000);
    c.source.origin = {"cdc.events", partition_id(1), kafka_offset(100 + i), timestamp_ns(0)};
    changes.push_back(c);
  }
  changes.push_back(changes.front());  // redelivered: its position is written once
  std::vector<change> replayed = changes;
  // A second change of one message (its index 1) is a row of its own.
  changes.push_back(changes.front());
  changes.back().source.origin.index = 1;
  changes.back().after = {{"what", value::string("e0b")}};
  const apply_stats s = applier.apply(w.merge(std::move(changes)), {}, {});
  CHECK(s.appended == 4);
  CHECK(w.count("SELECT count(*) FROM " + w.target("events") + " WHERE _sluice_op = 'upsert' " +
                "AND _sluice_tx = 'tx1' AND _sluice_kafka_topic = 'cdc.events'") == 4);
  CHECK(w.one("SELECT string_agg(what, ',' ORDER BY _sluice_kafka_offset, "
              "_sluice_kafka_index) FROM " +
              w.target("events")) == "e0,e0b,e1,e2");
  // Replayed (an offsets reset, a redelivery after a crash): nothing is appended twice.
  const apply_stats again = applier.apply(w.merge(std::move(replayed)), {}, {});
  CHECK(again.appended == 0);
  CHECK(w.count("SELECT count(*) FROM " + w.target("events")) == 4);

  apply_options o = w.options();
  o.keyless = apply_keyless_mode::dead_letter;
  test_sink strict(w.dsn, o);
  change c;
  c.table = t;
  c.after = {{"what", value::string("refused")}};
  c.source.origin = {"cdc.events", partition_id(1), kafka_offset(200), timestamp_ns(0)};
  const apply_stats d = strict.apply(w.merge({c}), {}, {});
  CHECK(d.dead_lettered == 1);
  CHECK(w.one("SELECT kafka_offset FROM \"" + w.state + "\".dead_letters") == "200");
}

TEST_CASE("an append to a table with a primary key on the changes' key refuses a key it holds") {
  // insert.mode insert into a table another sink built, keyed by id: a second insert of a key
  // is a dead letter, as the peers' plain INSERT fails; the rest of the batch commits.
  pg_world w;
  {
    pqxx::work tx(w.look);
    tx.exec("CREATE SCHEMA " + tx.quote_name(w.source_schema));
    tx.exec("CREATE TABLE " + w.target("history") + " (id bigint PRIMARY KEY, v text)");
    tx.exec("INSERT INTO " + w.target("history") + " VALUES (1, 'there')");
    tx.commit();
  }
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("history");
  std::vector<change> changes;
  for (int id : {1, 2}) {
    change c;
    c.table = t;
    c.after = {{"id", value::number(std::to_string(id))}, {"v", value::string("new")}};
    c.seq = seq(10 + id);
    c.source.origin = {"cdc.history", partition_id(0), kafka_offset(id), timestamp_ns(0)};
    changes.push_back(c);
  }
  const apply_stats s = applier.apply(w.merge(std::move(changes)), {}, {});
  CHECK(s.appended == 1);
  CHECK(s.rejected == 1);
  CHECK(w.one("SELECT v FROM " + w.target("history") + " WHERE id = 1") == "there");
  CHECK(w.one("SELECT v FROM " + w.target("history") + " WHERE id = 2") == "new");
  const auto reason = w.one("SELECT reason FROM \"" + w.state + "\".dead_letters");
  REQUIRE(reason);
  CHECK(reason->find("duplicate key") != std::string::npos);
}

TEST_CASE("kafka key mode: a position Connect's sink wrote already is skipped, not refused") {
  // Taking over from Connect's sink under pk.mode=kafka: its table is keyed by the position,
  // and the messages after its committed offset may be in it already (at least once).
  pg_world w;
  {
    pqxx::work tx(w.look);
    tx.exec("CREATE SCHEMA " + tx.quote_name(w.source_schema));
    tx.exec("CREATE TABLE " + w.target("clicks") +
            " (__connect_topic text, __connect_partition int, __connect_offset bigint, v text, "
            "PRIMARY KEY (__connect_topic, __connect_partition, __connect_offset))");
    tx.exec("INSERT INTO " + w.target("clicks") + " VALUES ('cdc.clicks', 0, 1, 'connect')");
    tx.commit();
  }
  apply_options o = w.options();
  o.append_skips_any_conflict = true;
  test_sink applier(w.dsn, o);
  table_entry* t = w.table("clicks");
  std::vector<change> changes;
  for (int offset : {1, 2}) {
    change c;
    c.table = t;
    c.after = {{"__connect_topic", value::string("cdc.clicks")},
               {"__connect_partition", value::number("0")},
               {"__connect_offset", value::number(std::to_string(offset))},
               {"v", value::string("sluice")}};
    c.seq = seq(offset);
    c.source.origin = {"cdc.clicks", partition_id(0), kafka_offset(offset), timestamp_ns(0)};
    changes.push_back(c);
  }
  const apply_stats s = applier.apply(w.merge(std::move(changes)), {}, {});
  CHECK(s.appended == 1);
  CHECK(s.rejected == 0);
  CHECK(w.one("SELECT string_agg(v, ',' ORDER BY __connect_offset) FROM " + w.target("clicks")) ==
        "connect,sluice");
}

TEST_CASE("update mode changes the rows the table holds, counts the others and makes none") {
  pg_world w;
  table_entry* t = w.table("accounts");
  test_sink upserts(w.dsn, w.options());
  upserts.apply(w.merge({w.upsert(t, 1, 10, {{"balance", value::number("5")}})}), {}, {});
  apply_options o = w.options();
  o.update_only = true;
  test_sink updates(w.dsn, o);
  const apply_stats s =
      updates.apply(w.merge({w.upsert(t, 1, 12, {{"balance", value::number("7")}}),
                             w.upsert(t, 2, 12, {{"balance", value::number("9")}})}),
                    {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.missing == 1);
  CHECK(s.stale == 0);
  CHECK(w.one("SELECT balance FROM " + w.target("accounts") + " WHERE id = 1") == "7");
  CHECK(w.count("SELECT count(*) FROM " + w.target("accounts")) == 1);  // id 2 never made
  // Guarded as an upsert is: an older change of a row it holds is stale, not applied.
  const apply_stats old =
      updates.apply(w.merge({w.upsert(t, 1, 11, {{"balance", value::number("6")}})}), {}, {});
  CHECK(old.upserted == 0);
  CHECK(old.stale == 1);
  CHECK(old.missing == 0);
  CHECK(w.one("SELECT balance FROM " + w.target("accounts") + " WHERE id = 1") == "7");
  REQUIRE(s.tables.size() == 1);
  CHECK(s.tables[0].missing == 1);
}

TEST_CASE("soft deletes keep the row marked, and an equal-CSN upsert revives it") {
  pg_world w;
  apply_options o = w.options();
  o.deletes = apply_delete_mode::soft;
  test_sink applier(w.dsn, o);
  table_entry* t = w.table("orders");
  applier.apply(w.merge({w.upsert(t, 1, 1, {{"name", value::string("a")}})}), {}, {});
  applier.apply(w.merge({w.remove(t, 1, 5)}), {}, {});
  CHECK(w.one("SELECT _sluice_deleted FROM " + w.target("orders")) == "t");
  applier.apply(w.merge({w.upsert(t, 1, 4, {{"name", value::string("late")}})}), {}, {});
  CHECK(w.one("SELECT name || _sluice_deleted FROM " + w.target("orders")) == "atrue");
  applier.apply(w.merge({w.upsert(t, 1, 5, {{"name", value::string("b")}})}), {}, {});
  CHECK(w.one("SELECT name || _sluice_deleted FROM " + w.target("orders")) == "bfalse");
}

TEST_CASE("two source columns folding to one target name are refused, not merged") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  const apply_stats s = applier.apply(
      w.merge({w.upsert(t, 1, 1, {{"Name", value::string("a")}, {"NAME", value::string("b")}}),
               w.upsert(t, 2, 1, {{"Name", value::string("c")}})}),
      {}, {});
  CHECK(s.rejected == 1);
  CHECK(s.upserted == 1);
  const auto reason = w.one("SELECT reason FROM \"" + w.state + "\".dead_letters");
  REQUIRE(reason);
  CHECK(reason->find("both map to \"name\"") != std::string::npos);
}

TEST_CASE("the applier reconnects after its connection is killed") {
  pg_world w;
  const std::string app = unique_name("applier");
  test_sink applier(with_application_name(w.dsn, app), w.options());
  table_entry* t = w.table("orders");
  applier.apply(w.merge({w.upsert(t, 1, 1, {})}), {}, {});
  {
    pqxx::work tx(w.look);
    CHECK(tx.exec_params("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE application_name = $1",
                         app)
              .size() == 1);
    tx.commit();
  }
  const apply_stats s = applier.apply(w.merge({w.upsert(t, 2, 1, {})}), {}, {});
  CHECK(s.upserted == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 2);
}

TEST_CASE("concurrent writers of the same keys converge on the newest change") {
  pg_world w;
  table_entry* t = w.table("counters");
  {
    test_sink setup(w.dsn, w.options());
    setup.apply(w.merge({w.upsert(t, 0, 0, {{"v", value::number("0")}})}), {}, {});
  }
  // Two lanes apply histories of keys 0..19 — upserts and deletes at even CSNs on one lane,
  // odd on the other — one lane oldest first, the other newest first, so that late older
  // changes meet newer ones in every interleaving.
  std::vector<merged_batch> lanes[2];
  for (int parity = 0; parity < 2; ++parity) {
    for (int round = 0; round < 30; ++round) {
      const int r = parity == 0 ? 29 - round : round;
      const int64_t n = 2 * r + parity;
      std::vector<change> changes;
      for (int id = 0; id < 20; ++id) {
        if ((id + r) % 7 == 0) {
          changes.push_back(w.remove(t, id, n));
        } else {
          changes.push_back(w.upsert(t, id, n, {{"v", value::number(std::to_string(n))}}));
        }
      }
      lanes[parity].push_back(w.merge(std::move(changes)));
    }
  }
  std::exception_ptr failed[2];
  auto run = [&](int parity) {
    try {
      test_sink applier(w.dsn, w.options());
      for (const merged_batch& batch : lanes[parity])
        applier.apply(batch, {}, {});
    } catch (...) {
      failed[parity] = std::current_exception();
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  for (const std::exception_ptr& e : failed) {
    if (e) CHECK_NOTHROW(std::rethrow_exception(e));
  }
  // The newest change of every key is from round 29, lane 1 (CSN 59).
  for (int id = 0; id < 20; ++id) {
    const bool deleted = (id + 29) % 7 == 0;
    const auto v =
        w.one("SELECT v::text FROM " + w.target("counters") + " WHERE id = " + std::to_string(id));
    if (deleted) {
      CHECK_MESSAGE(!v, "key " << id);
    } else {
      CHECK_MESSAGE(v == "59", "key " << id);
    }
  }
}

TEST_CASE("an older upsert racing a delete's open transaction does not bring the row back") {
  pg_world w;
  table_entry* t = w.table("orders");
  const std::string deleter_app = unique_name("deleter"), upserter_app = unique_name("upserter");
  test_sink deleter(with_application_name(w.dsn, deleter_app), w.options());
  test_sink upserter(with_application_name(w.dsn, upserter_app), w.options());
  deleter.apply(w.merge({w.upsert(t, 1, 1, {{"v", value::number("1")}})}), {}, {});
  upserter.start();

  // Hold the deleter's transaction open after its delete: it waits to write a dead letter.
  pqxx::connection gate_conn(w.dsn);
  auto gate = std::make_unique<pqxx::work>(gate_conn);
  gate->exec("LOCK TABLE \"" + w.state + "\".dead_letters IN EXCLUSIVE MODE");
  auto waiting = [&](const std::string& app) {
    for (int i = 0; i < 1000; ++i) {
      pqxx::work tx(w.look);
      if (tx.exec_params("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND "
                         "wait_event_type = 'Lock'",
                         app)
              .size() == 1) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  dead_letter dl;
  dl.reason = "holds the transaction open";
  std::exception_ptr failed[2];
  std::thread del([&] {
    try {
      deleter.apply(w.merge({w.remove(t, 1, 10)}), {dl}, {});
    } catch (...) {
      failed[0] = std::current_exception();
    }
  });
  REQUIRE(waiting(deleter_app));
  std::thread ups([&] {
    try {
      upserter.apply(w.merge({w.upsert(t, 1, 5, {{"v", value::number("5")}})}), {}, {});
    } catch (...) {
      failed[1] = std::current_exception();
    }
  });
  // The older upsert must wait for the delete's transaction (on the key's lock).
  CHECK(waiting(upserter_app));
  gate->commit();
  del.join();
  ups.join();
  for (const std::exception_ptr& e : failed) {
    if (e) CHECK_NOTHROW(std::rethrow_exception(e));
  }
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);
}

TEST_CASE("a partial update applied before an older full row is neither lost nor overwritten") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("accounts");
  auto partial = [&](int64_t id, int64_t n, image img) {
    change c = w.upsert(t, id, n, std::move(img));
    c.partial = true;
    return c;
  };
  auto row = [&](int64_t id) {
    return w.one("SELECT coalesce(a::text, '-') || ',' || coalesce(b::text, '-') FROM " +
                 w.target("accounts") + " WHERE id = " + std::to_string(id));
  };
  // Key 1: full at 1, partial at 5, then a late full at 3.
  applier.apply(
      w.merge({w.upsert(t, 1, 1, {{"a", value::number("1")}, {"b", value::number("1")}})}), {}, {});
  applier.apply(w.merge({partial(1, 5, {{"a", value::number("5")}})}), {}, {});
  CHECK(row(1) == "5,1");
  applier.apply(
      w.merge({w.upsert(t, 1, 3, {{"a", value::number("3")}, {"b", value::number("3")}})}), {}, {});
  CHECK(row(1) == "5,3");
  // Key 2: the partial arrives first, the older full row after it.
  applier.apply(w.merge({partial(2, 5, {{"a", value::number("5")}})}), {}, {});
  CHECK(row(2) == "5,-");
  applier.apply(
      w.merge({w.upsert(t, 2, 3, {{"a", value::number("3")}, {"b", value::number("3")}})}), {}, {});
  CHECK(row(2) == "5,3");
  // Applying the same changes again changes nothing.
  const apply_stats again = applier.apply(
      w.merge({partial(2, 5, {{"a", value::number("5")}}),
               w.upsert(t, 2, 3, {{"a", value::number("3")}, {"b", value::number("3")}})}),
      {}, {});
  CHECK(again.upserted == 0);
  CHECK(row(2) == "5,3");
}

TEST_CASE("with per-column CSNs a late delete clears only the columns set before it") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("accounts");
  change p = w.upsert(t, 1, 5, {{"a", value::number("5")}});
  p.partial = true;
  applier.apply(
      w.merge({w.upsert(t, 1, 1, {{"a", value::number("1")}, {"b", value::number("1")}}), p}), {},
      {});
  applier.apply(w.merge({w.remove(t, 1, 3)}), {}, {});
  CHECK(w.one("SELECT coalesce(a::text, '-') || ',' || coalesce(b::text, '-') FROM " +
              w.target("accounts")) == "5,-");
  // A full row older than the delete stays out.
  applier.apply(
      w.merge({w.upsert(t, 1, 2, {{"a", value::number("2")}, {"b", value::number("2")}})}), {}, {});
  CHECK(w.one("SELECT coalesce(a::text, '-') || ',' || coalesce(b::text, '-') FROM " +
              w.target("accounts")) == "5,-");
  // A delete newer than every column removes the row.
  applier.apply(w.merge({w.remove(t, 1, 9)}), {}, {});
  CHECK(w.count("SELECT count(*) FROM " + w.target("accounts")) == 0);
}

TEST_CASE("rows written before a table kept per-column CSNs count as set at their row CSN") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("accounts");
  applier.apply(
      w.merge({w.upsert(t, 1, 10, {{"a", value::number("10")}, {"b", value::number("10")}})}), {},
      {});
  change older = w.upsert(t, 1, 5, {{"a", value::number("5")}});
  older.partial = true;
  const apply_stats s = applier.apply(w.merge({older}), {}, {});
  CHECK(s.stale == 1);
  change newer = w.upsert(t, 1, 12, {{"b", value::number("12")}});
  newer.partial = true;
  applier.apply(w.merge({newer}), {}, {});
  CHECK(w.one("SELECT a || ',' || b FROM " + w.target("accounts")) == "10,12");
}

TEST_CASE("with per-column CSNs a truncate clears older columns of rows that outlive it") {
  pg_world w;
  apply_options o = w.options();
  o.truncate_enabled = true;
  test_sink applier(w.dsn, o);
  table_entry* t = w.table("accounts");
  const std::string odd = "it's \\ \"odd\"";  // a column name that must stay data
  change p = w.upsert(t, 1, 60, {{odd, value::number("60")}});
  p.partial = true;
  applier.apply(
      w.merge({w.upsert(t, 1, 1, {{odd, value::number("1")}, {"b", value::number("1")}}),
               w.upsert(t, 2, 1, {{odd, value::number("1")}, {"b", value::number("1")}}), p}),
      {}, {});
  change trunc;
  trunc.op = op_kind::truncate;
  trunc.table = t;
  trunc.seq = seq(50);
  applier.apply(w.merge({trunc}), {}, {});
  CHECK(w.one("SELECT string_agg(id || ':' || coalesce(" + w.look.quote_name(odd) +
              "::text, '-') || ',' || coalesce(b::text, '-'), ' ') FROM " + w.target("accounts")) ==
        "1:60,-");
}

TEST_CASE("the state schema is created once and migrating again changes nothing") {
  pg_world w;
  const state_schema schema(w.state);
  pqxx::connection a(w.dsn), b(w.dsn);
  CHECK(schema.migrate(a) == 0);
  CHECK(schema.migrate(b) == state_schema::current_version);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".schema_version") ==
        state_schema::current_version);
  // offsets, dead_letters, tombstones, pending_fragments, catalog, ddl_history,
  // table_progress, routes, registry_schemas, connector_control, members and schema_version.
  CHECK(w.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + w.state +
                "'") == 12);
}

TEST_CASE("a state schema of version 4 gains registry_schemas, its data kept") {
  pg_world w;
  const state_schema schema(w.state);
  pqxx::connection a(w.dsn);
  schema.migrate(a);
  {
    pqxx::work tx(a);
    tx.exec("DROP TABLE \"" + w.state + "\".registry_schemas");
    tx.exec("DELETE FROM \"" + w.state + "\".schema_version WHERE version > 4");
    tx.exec("INSERT INTO \"" + w.state +
            "\".offsets (connector, topic, partition, next_offset) VALUES ('c', 't', 0, 42)");
    tx.commit();
  }
  CHECK(schema.migrate(a) == 4);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".registry_schemas") == 0);
  CHECK(w.count("SELECT next_offset FROM \"" + w.state + "\".offsets") == 42);
}

TEST_CASE("a state schema of version 1 is migrated forward, its data kept") {
  pg_world w;
  const state_schema schema(w.state);
  pqxx::connection a(w.dsn);
  schema.migrate(a);
  {
    // What sluice 0.1 left: version 1, without table_progress, with an offset stored.
    pqxx::work tx(a);
    tx.exec("DROP TABLE \"" + w.state + "\".table_progress");
    tx.exec("DELETE FROM \"" + w.state + "\".schema_version WHERE version > 1");
    tx.exec("INSERT INTO \"" + w.state +
            "\".offsets (connector, topic, partition, next_offset) VALUES ('c', 't', 0, 42)");
    tx.commit();
  }
  CHECK(schema.migrate(a) == 1);
  CHECK(w.count("SELECT max(version) FROM \"" + w.state + "\".schema_version") ==
        state_schema::current_version);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".table_progress") == 0);
  CHECK(w.count("SELECT next_offset FROM \"" + w.state + "\".offsets") == 42);
}

// --- What metadata records teach: sluice.catalog and sluice.ddl_history (catalog_writer) ---

catalog_update orders_metadata(int64_t csn_n, std::vector<std::string> key) {
  catalog_update u;
  u.table = table_name{"", "SALES", "ORDERS"};
  u.columns = {{"ORDER_ID", "number", column_class::numeric, false, true, {type_id::decimal}},
               {"STATUS",
                "VARCHAR2(20)",
                column_class::text,
                true,
                false,
                {type_id::string, column_type::no_precision, 0, 20}},
               {"it's \"odd\"", "", column_class::unknown, true, false, {}}};
  u.key_columns = std::move(key);
  u.learned_from = "goldengate OBJECT_METADATA";
  if (csn_n > 0) u.seq = seq(csn_n);
  u.origin = {"gg.orders", partition_id(0), kafka_offset(csn_n), timestamp_ns(0)};
  return u;
}

ddl_record alter_orders(int64_t csn_n, int64_t offset) {
  ddl_record d;
  d.table = table_name{"", "SALES", "ORDERS"};
  d.statement = "ALTER TABLE SALES.ORDERS ADD CUSTOMER_TIER VARCHAR2(20)";
  d.seq = seq(csn_n);
  d.source_ts = timestamp_ns(1'783'915'470'000'000'000);
  d.origin = {"gg.orders", partition_id(0), kafka_offset(offset), timestamp_ns(0)};
  return d;
}

TEST_CASE("catalog updates are written with the batch and read back by load_catalog") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  CHECK(applier.load_catalog().empty());

  applier.apply(w.merge({}), {}, {}, {{orders_metadata(5, {"ORDER_ID"})}, {}});
  std::vector<catalog_update> stored = applier.load_catalog();
  REQUIRE(stored.size() == 1);
  const catalog_update& u = stored[0];
  CHECK(u.table == table_name{"", "SALES", "ORDERS"});
  CHECK(u.key_columns == std::vector<std::string>{"ORDER_ID"});
  CHECK(u.learned_from == "goldengate OBJECT_METADATA");
  CHECK(u.seq == seq(5));
  REQUIRE(u.columns.size() == 3);
  CHECK(u.columns[0].name == "ORDER_ID");
  CHECK(u.columns[0].source_type == "number");
  CHECK(u.columns[0].cls == column_class::numeric);
  CHECK(!u.columns[0].nullable);
  CHECK(u.columns[0].key);
  CHECK(u.columns[0].type == column_type{type_id::decimal});
  CHECK(u.columns[1].source_type == "VARCHAR2(20)");
  CHECK(u.columns[1].type.to_text() == "string(20)");
  CHECK(u.columns[1].cls == column_class::text);
  CHECK(u.columns[1].nullable);
  CHECK(!u.columns[1].key);
  CHECK(u.columns[2].name == "it's \"odd\"");

  // Sent again (the same record on another partition): the row is not even rewritten.
  const std::string table = "\"" + w.state + "\".catalog";
  const auto written_at = w.one("SELECT updated_at::text FROM " + table);
  applier.apply(w.merge({}), {}, {}, {{orders_metadata(5, {"ORDER_ID"})}, {}});
  CHECK(w.one("SELECT updated_at::text FROM " + table) == written_at);
  CHECK(w.count("SELECT count(*) FROM " + table) == 1);

  // Older by CSN: kept out; newer: replaces; within one batch the newest wins.
  applier.apply(w.merge({}), {}, {}, {{orders_metadata(3, {"STATUS"})}, {}});
  CHECK(applier.load_catalog()[0].key_columns == std::vector<std::string>{"ORDER_ID"});
  applier.apply(w.merge({}), {}, {},
                {{orders_metadata(9, {"STATUS"}), orders_metadata(7, {"ORDER_ID", "STATUS"})}, {}});
  stored = applier.load_catalog();
  CHECK(stored[0].key_columns == std::vector<std::string>{"STATUS"});
  CHECK(stored[0].seq == seq(9));
  // Without a CSN the last write wins.
  applier.apply(w.merge({}), {}, {}, {{orders_metadata(0, {})}, {}});
  stored = applier.load_catalog();
  CHECK(stored[0].key_columns.empty());
  CHECK(stored[0].seq.empty());

  // A row stored before portable types (no "portable_type") reads back with unknown types.
  {
    pqxx::work tx(w.look);
    tx.exec("UPDATE " + table +
            " SET columns = '[{\"name\": \"ORDER_ID\", \"type\": \"NUMBER(10)\", "
            "\"class\": \"numeric\", \"nullable\": false, \"key\": true}]'");
    tx.commit();
  }
  stored = applier.load_catalog();
  REQUIRE(stored[0].columns.size() == 1);
  CHECK(stored[0].columns[0].source_type == "NUMBER(10)");
  CHECK(!stored[0].columns[0].type.known());

  // Another connector sees only its own catalog.
  test_sink other(w.dsn, w.options("other"));
  CHECK(other.load_catalog().empty());
  CHECK(applier.load_catalog().size() == 1);
}

TEST_CASE("DDL history is written in the batch transaction, and not by a fenced batch") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  const auto first = applier.claim("gg.orders", {partition_id(0)});
  const auto second = applier.claim("gg.orders", {partition_id(0)});
  const batch_metadata metadata{{orders_metadata(5, {"ORDER_ID"})}, {alter_orders(6, 7)}};
  const std::string history = "\"" + w.state + "\".ddl_history";

  // A zombie's batch: neither its DDL nor its catalog update is kept.
  const partition_progress zombie{"gg.orders", partition_id(0), first[0].epoch, kafka_offset(-1),
                                  kafka_offset(8)};
  CHECK(applier.try_apply(w.merge({}), {}, {zombie}, metadata).outcome == apply_outcome::stale);
  CHECK(w.count("SELECT count(*) FROM " + history) == 0);
  CHECK(applier.load_catalog().empty());

  const partition_progress owner{"gg.orders", partition_id(0), second[0].epoch, kafka_offset(-1),
                                 kafka_offset(8)};
  applier.apply(w.merge({}), {}, {owner}, metadata);
  CHECK(w.count("SELECT count(*) FROM " + history) == 1);
  CHECK(w.one("SELECT connector || '|' || source_table || '|' || statement || '|' || topic || "
              "':' || partition || ':' || kafka_offset FROM " +
              history) ==
        "test|SALES.ORDERS|ALTER TABLE SALES.ORDERS ADD CUSTOMER_TIER VARCHAR2(20)|gg.orders:0:7");
  CHECK(w.one("SELECT source_ts = '2026-07-13T04:04:30Z'::timestamptz FROM " + history) == "t");
  CHECK(w.one("SELECT encode(csn, 'hex') FROM " + history) == seq(6).hex());
  CHECK(applier.load_catalog().size() == 1);

  // The same record redelivered (at another offset, twice in one batch) is recorded once; a
  // new statement is added.
  ddl_record other = alter_orders(10, 12);
  other.statement = "ALTER TABLE SALES.ORDERS DROP COLUMN CUSTOMER_TIER";
  applier.apply(w.merge({}), {}, {}, {{}, {alter_orders(6, 9), alter_orders(6, 10), other}});
  CHECK(w.count("SELECT count(*) FROM " + history) == 2);
  CHECK(w.one("SELECT string_agg(kafka_offset::text, ',' ORDER BY id) FROM " + history) == "7,12");
}

}  // namespace
TEST_CASE("tombstones older than the retention expire, younger ones keep guarding") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  applier.apply(w.merge({w.upsert(orders, 1, 10, {{"name", value::string("a")}}),
                         w.upsert(orders, 2, 10, {{"name", value::string("b")}})}),
                {}, {});
  applier.apply(w.merge({w.remove(orders, 1, 20), w.remove(orders, 2, 20)}), {}, {});
  const std::string tombstones = "\"" + w.state + "\".tombstones";
  REQUIRE(w.count("SELECT count(*) FROM " + tombstones) == 2);
  // Key 1's tombstone is two days old; key 2's is fresh.
  pqxx::work tx(w.look);
  tx.exec("UPDATE " + tombstones + " SET deleted_at = now() - interval '2 days' WHERE key_json = " +
          tx.quote(R"({"id": 1})") + "::jsonb");
  tx.commit();

  CHECK(applier.expire_tombstones(std::chrono::hours(24)) == 1);
  CHECK(w.count("SELECT count(*) FROM " + tombstones) == 1);
  // The young tombstone still keeps a late older upsert out.
  applier.apply(w.merge({w.upsert(orders, 2, 15, {{"name", value::string("late")}})}), {}, {});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);
}

TEST_CASE("a tombstone that a stored dead letter may still need outlives the retention") {
  pg_world w;
  test_sink applier(w.dsn, w.options());
  table_entry* orders = w.table("orders");
  table_entry* customers = w.table("customers");
  applier.apply(w.merge({w.upsert(orders, 1, 10, {{"name", value::string("a")}}),
                         w.upsert(customers, 2, 10, {{"name", value::string("b")}})}),
                {}, {});
  applier.apply(w.merge({w.remove(orders, 1, 20), w.remove(customers, 2, 20)}), {}, {});
  const std::string tombstones = "\"" + w.state + "\".tombstones";
  const std::string letters = "\"" + w.state + "\".dead_letters";
  REQUIRE(w.count("SELECT count(*) FROM " + tombstones) == 2);
  const auto age_tombstones = [&] {
    pqxx::work tx(w.look);
    tx.exec("UPDATE " + tombstones + " SET deleted_at = now() - interval '3 days'");
    tx.commit();
  };
  // A letter about orders, of a change older than the delete (written before it): replayed,
  // it must still meet the tombstone, whatever the retention says.
  const auto letter = [&](const std::string& table, const std::string& written) {
    pqxx::work tx(w.look);
    tx.exec("DELETE FROM " + letters);
    tx.exec("INSERT INTO " + letters +
            " (connector, reason, kind, target_schema, target_table, created_at) SELECT "
            "'test', 'refused', 'rejected', " +
            (table.empty() ? std::string("NULL, NULL") : "target_schema, target_table") +
            ", now() - interval '" + written + "' FROM " + tombstones +
            (table.empty() ? "" : " WHERE target_table = " + tx.quote(table)) + " LIMIT 1");
    tx.commit();
  };
  age_tombstones();
  letter("orders", "10 days");
  sink::tombstone_expiry e = applier.expire_tombstones_in_full(std::chrono::hours(24));
  CHECK(e.expired == 1);  // customers' tombstone: no letter of that table
  CHECK(e.kept == 1);
  CHECK(w.count("SELECT count(*) FROM " + tombstones + " WHERE target_table = 'orders'") == 1);

  // Once the letter is gone (replayed or purged), the tombstone goes too.
  letter("no such table", "1 day");
  e = applier.expire_tombstones_in_full(std::chrono::hours(24));
  CHECK(e.expired == 1);
  CHECK(e.kept == 0);

  // A letter naming no table (a decode letter may hold any table's change) keeps them all; a
  // letter written more than the retention after the delete keeps nothing (its change came
  // too late for the tombstone anyway).
  applier.apply(w.merge({w.remove(orders, 1, 30), w.remove(customers, 2, 30)}), {}, {});
  age_tombstones();
  letter("", "2 days 12 hours");
  e = applier.expire_tombstones_in_full(std::chrono::hours(24));
  CHECK(e.expired == 0);
  CHECK(e.kept == 2);
  letter("orders", "1 hour");
  e = applier.expire_tombstones_in_full(std::chrono::hours(24));
  CHECK(e.expired == 2);
  CHECK(e.kept == 0);
}

}  // namespace sluice
