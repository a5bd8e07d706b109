// The smaller state stores of the MariaDB target, each against the server: table progress,
// control, routes, registry schemas, catalog and DDL history.
#include <doctest/doctest.h>

#include <thread>

#include "core/merge/merged_batch.h"
#include "sinks/mariadb/state/catalog_writer.h"
#include "sinks/mariadb/state/control_store.h"
#include "sinks/mariadb/state/route_registry.h"
#include "sinks/mariadb/state/schema_store.h"
#include "sinks/mariadb/state/table_progress_store.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

csn seq(int64_t n) {
  return csn_builder().add(n).build();
}

table_plan plan_for(const table_rows& rows, std::string schema, std::string table) {
  table_plan p;
  p.rows = &rows;
  p.target = {std::move(schema), std::move(table)};
  p.rejected = {0};  // one accepted row
  return p;
}

TEST_CASE("mariadb table progress: the newest source timestamp is kept, a late batch keeps it") {
  state_test_db db("mdb_progress");
  const mdb::table_progress_store store(db.schema, "c");
  table_entry orders;
  orders.name = table_name{"", "app", "orders"};
  table_rows newer, older, none;
  newer.table = older.table = none.table = &orders;
  newer.newest_source_ts = timestamp_ns(int64_t{1'700'000'000'000'001} * 1000);
  older.newest_source_ts = timestamp_ns(int64_t{1'600'000'000'000'000} * 1000);
  db.in_tx([&](mdb::connection& c) {
    store.record(c, {plan_for(none, "s", "orders")});  // no source timestamp: unknown
  });
  auto read = store.read(db.conn);
  REQUIRE(read.size() == 1);
  CHECK_FALSE(read[0].newest_source_ts);
  db.in_tx([&](mdb::connection& c) {
    store.record(c, {plan_for(newer, "s", "orders")}, {plan_for(none, "s", "items")});
  });
  db.in_tx([&](mdb::connection& c) { store.record(c, {plan_for(older, "s", "orders")}); });
  db.in_tx([&](mdb::connection& c) { store.record(c, {plan_for(none, "s", "orders")}); });
  read = store.read(db.conn);
  REQUIRE(read.size() == 2);
  CHECK(read[0].table.name == "items");
  CHECK(read[1].table.name == "orders");
  CHECK(read[1].newest_source_ts == "2023-11-14T22:13:20.000001Z");
  CHECK(read[1].applied_at.ends_with("Z"));
  // A plan refused whole applied nothing: not recorded.
  table_plan refused = plan_for(newer, "s", "refused");
  refused.rejected = {1};
  db.in_tx([&](mdb::connection& c) { store.record(c, {refused}); });
  CHECK(store.read(db.conn).size() == 2);
}

TEST_CASE("mariadb control: heartbeats, silent members forgotten, target state, restart epochs") {
  state_test_db db("mdb_control");
  const mdb::control_store store(db.schema, "c");
  CHECK(store.read(db.conn).target == sink::target_state::running);  // no row yet
  db.in_tx([&](mdb::connection& c) {
    store.beat(c, {"host:1", "RUNNING", "", {"orders", "items"}}, std::chrono::seconds(60));
    store.beat(c, {"host:2", "DEGRADED", "target down", {}}, std::chrono::seconds(60));
  });
  auto v = store.read(db.conn);
  REQUIRE(v.members.size() == 2);
  CHECK(v.members[0].heartbeat.worker_id == "host:1");
  CHECK(v.members[0].heartbeat.topics == std::vector<std::string>{"orders", "items"});
  CHECK(v.members[0].heartbeat.trace.empty());
  CHECK(v.members[1].heartbeat.state == "DEGRADED");
  CHECK(v.members[1].heartbeat.trace == "target down");
  CHECK(v.members[1].heartbeat.topics.empty());
  CHECK(v.members[0].age_ms >= 0);
  CHECK(v.members[0].age_ms < 60'000);

  // host:2 falls silent; host:1 beats on with a 1 s memory: host:2 is forgotten.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  db.in_tx([&](mdb::connection& c) {
    store.beat(c, {"host:1", "RUNNING", "", {"orders"}}, std::chrono::seconds(1));
  });
  v = store.read(db.conn);
  REQUIRE(v.members.size() == 1);
  CHECK(v.members[0].heartbeat.worker_id == "host:1");
  CHECK(v.members[0].heartbeat.topics == std::vector<std::string>{"orders"});

  db.in_tx([&](mdb::connection& c) { store.set_target(c, sink::target_state::paused, "me"); });
  CHECK(store.read(db.conn).target == sink::target_state::paused);
  CHECK(db.in_tx([&](mdb::connection& c) { return store.request_restart(c, false); }) == 1);
  CHECK(db.in_tx([&](mdb::connection& c) { return store.request_restart(c, true); }) == 2);
  v = store.read(db.conn);
  CHECK(v.restart_epoch == 2);
  CHECK(v.restart_only_failed);
  CHECK(v.target == sink::target_state::paused);  // a restart keeps the target state
  CHECK(db.in_tx([&](mdb::connection& c) { return store.request_member_restart(c, "host:1"); }));
  CHECK(db.in_tx([&](mdb::connection& c) { return store.request_member_restart(c, "host:1"); }));
  CHECK_FALSE(
      db.in_tx([&](mdb::connection& c) { return store.request_member_restart(c, "host:9"); }));
  CHECK(store.read(db.conn).members.at(0).restart_epoch == 2);
  db.in_tx([&](mdb::connection& c) { store.leave(c, "host:1"); });
  CHECK(store.read(db.conn).members.empty());
  // Another connector's control is its own.
  CHECK(mdb::control_store(db.schema, "d").read(db.conn).restart_epoch == 0);
}

TEST_CASE(
    "mariadb route registry: a second source claiming a target is refused, across "
    "registries") {
  state_test_db db("mdb_routes");
  table_entry upper, lower;
  upper.name = table_name{"", "app", "ORDERS"};
  lower.name = table_name{"", "app", "orders"};
  table_rows from_upper, from_lower;
  from_upper.table = &upper;
  from_lower.table = &lower;
  from_upper.rows.emplace_back();  // the row a refused plan dead-letters
  from_lower.rows.emplace_back();

  // A first lane claims s.orders for app.orders.
  mdb::route_registry first(db.schema, "c");
  std::vector<table_plan> plans{plan_for(from_lower, "s", "orders")};
  CHECK(first.needs_claims(plans));
  first.learn(db.in_tx([&](mdb::connection& c) { return first.claim(c, plans); }));
  CHECK_FALSE(first.needs_claims(plans));
  std::vector<dead_letter> rejects;
  first.enforce(plans, rejects);
  CHECK(rejects.empty());

  // Another lane (another process) routes app.ORDERS there too: refused as a routing letter.
  mdb::route_registry second(db.schema, "c");
  std::vector<table_plan> theirs{plan_for(from_upper, "s", "orders"),
                                 plan_for(from_upper, "s", "other")};
  second.learn(db.in_tx([&](mdb::connection& c) { return second.claim(c, theirs); }));
  second.enforce(theirs, rejects);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].kind == dead_letter_kind::routing);
  CHECK(rejects[0].reason.find("app.orders already feeds") != std::string::npos);
  CHECK(theirs[0].rejected.at(0) != 0);
  CHECK(theirs[1].rejected.at(0) == 0);  // its own new target is fine
  // The stored claim did not move.
  CHECK(db.conn
            .query("SELECT source_table FROM " + db.schema.table("routes") +
                   " WHERE target_table = 'orders'")
            .at(0, 0) == "orders");
}

TEST_CASE("mariadb schema store: a registry schema is stored once and loaded back") {
  state_test_db db("mdb_registry");
  const mdb::schema_store store(db.schema);
  CHECK_FALSE(store.load(db.conn, "http://r", 7));
  store.save(db.conn, "http://r", 7, {"AVRO", "{\"type\": \"string\"}"});
  store.save(db.conn, "http://r", 7, {"AVRO", "{\"type\": \"long\"}"});  // ids never change
  const auto got = store.load(db.conn, "http://r", 7);
  REQUIRE(got);
  CHECK(got->type == "AVRO");
  CHECK(got->text == "{\"type\": \"string\"}");
  CHECK_FALSE(store.load(db.conn, "http://other", 7));
}

catalog_update update(std::string table, int64_t n, std::vector<std::string> keys,
                      std::string learned) {
  catalog_update u;
  u.table = table_name{"db", "app", std::move(table)};
  u.key_columns = std::move(keys);
  u.learned_from = std::move(learned);
  if (n > 0) u.seq = seq(n);
  column_info id;
  id.name = "id";
  id.source_type = "NUMBER(10)";
  id.cls = column_class::numeric;
  id.nullable = false;
  id.key = true;
  column_info note;
  note.name = "note \"quoted\"";
  note.source_type = "VARCHAR2";
  note.cls = column_class::text;
  u.columns = {id, note};
  return u;
}

TEST_CASE("mariadb catalog: the newest update per table is kept and loads back") {
  state_test_db db("mdb_catalog");
  const mdb::catalog_writer writer(db.schema, "c");
  db.in_tx([&](mdb::connection& c) {
    // Within one batch: the higher CSN wins.
    writer.write(c, {update("orders", 5, {"id"}, "v5"), update("orders", 3, {"x"}, "v3"),
                     update("items", 0, {}, "no csn")});
  });
  const std::string updated = "SELECT learned_from, updated_at FROM " + db.schema.table("catalog") +
                              " WHERE source_table = 'orders'";
  const auto before = db.conn.query(updated);
  CHECK(before.at(0, 0) == "v5");
  // A later batch with an older CSN keeps the stored row; an identical one rewrites nothing.
  db.in_tx([&](mdb::connection& c) { writer.write(c, {update("orders", 4, {"y"}, "v4")}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  db.in_tx([&](mdb::connection& c) { writer.write(c, {update("orders", 5, {"id"}, "v5")}); });
  CHECK(db.conn.query(updated).rows == before.rows);
  db.in_tx([&](mdb::connection& c) { writer.write(c, {update("orders", 6, {"id", "k"}, "v6")}); });
  CHECK(db.conn.query(updated).at(0, 0) == "v6");

  const auto loaded = writer.load(db.conn);
  REQUIRE(loaded.size() == 2);
  CHECK(loaded[0].table.table == "items");
  CHECK(loaded[0].seq.empty());
  const catalog_update& o = loaded[1];
  CHECK(o.table == table_name{"db", "app", "orders"});
  CHECK(o.key_columns == std::vector<std::string>{"id", "k"});
  CHECK(o.learned_from == "v6");
  CHECK(o.seq == seq(6));
  REQUIRE(o.columns.size() == 2);
  CHECK(o.columns[0].name == "id");
  CHECK(o.columns[0].source_type == "NUMBER(10)");
  CHECK(o.columns[0].cls == column_class::numeric);
  CHECK_FALSE(o.columns[0].nullable);
  CHECK(o.columns[0].key);
  CHECK(o.columns[1].name == "note \"quoted\"");
  CHECK(o.columns[1].nullable);
  CHECK_FALSE(o.columns[1].key);
  // Another connector sees none of it.
  CHECK(mdb::catalog_writer(db.schema, "d").load(db.conn).empty());
}

TEST_CASE("mariadb catalog: a DDL statement redelivered at the same CSN is recorded once") {
  state_test_db db("mdb_ddl");
  const mdb::catalog_writer writer(db.schema, "c");
  ddl_record d;
  d.table = table_name{"db", "app", "orders"};
  d.statement = "ALTER TABLE orders ADD note varchar(10)";
  d.seq = seq(9);
  d.source_ts = timestamp_ns(int64_t{1'700'000'000'000'000} * 1000);
  d.origin.topic = "ddl";
  d.origin.offset = kafka_offset(4);
  ddl_record no_csn = d;
  no_csn.seq = {};
  CHECK(db.in_tx([&](mdb::connection& c) { return writer.record(c, {d, d, no_csn}); }) == 2);
  CHECK(db.in_tx([&](mdb::connection& c) { return writer.record(c, {d, no_csn}); }) == 1);
  const auto r = db.conn.query(
      "SELECT count(*), max(kafka_offset), "
      "DATE_FORMAT(max(source_ts), '%Y-%m-%d %H:%i:%s') FROM " +
      db.schema.table("ddl_history"));
  CHECK(r.at(0, 0) == "3");
  CHECK(r.at(0, 1) == "4");
  CHECK(r.at(0, 2) == "2023-11-14 22:13:20");
}

}  // namespace
}  // namespace sluice
