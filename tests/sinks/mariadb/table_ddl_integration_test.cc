#include "sinks/mariadb/plan/table_ddl.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "sinks/mariadb/plan/mdb_rules.h"
#include "sinks/mariadb/plan/table_shape_reader.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/plan/table_planner.h"
#include "tests/core/parsed_type.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

using mdb::param;

// A source database of its own per test (dropped at the end), changes planned as the applier
// plans them (table_planner with MariaDB's rules), and the DDL on a real server.
struct ddl_world {
  std::string db = testing::unique_name("ddl");
  table_catalog catalog;
  merge_engine merger;
  apply_options options;
  mdb::connection conn{testing::mariadb_settings()};
  std::vector<dead_letter> rejects;

  ddl_world() {
    options.connector = "test";
    options.ddl_lock_timeout = std::chrono::seconds(1);  // the slice
    options.ddl_wait_limit = std::chrono::seconds(30);
  }
  ~ddl_world() { conn.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(db)); }

  // An upsert of `table` keyed by `key_column` (typed by the stream when the type is given).
  change upsert(const std::string& table, const std::string& key_column, value key, image img,
                std::vector<column_types::column> types = {}) {
    change c;
    c.table = catalog.intern(table_name{"", db, table});
    auto k = make_row_key({key_column}, {key});
    REQUIRE(k.ok());
    c.key = k.value();
    img.insert(img.begin(), {key_column, key});
    c.after = std::move(img);
    c.seq = csn_builder().add(1).build();
    if (!types.empty()) {
      auto t = std::make_shared<column_types>();
      t->columns = std::move(types);
      c.types = t;
    }
    return c;
  }

  // Plans a batch of changes and prepares their tables.
  struct prepared {
    merged_batch batch;
    std::vector<table_plan> plans;
    std::vector<mdb::ddl_outcome> outcomes;
  };
  std::unique_ptr<prepared> prepare(mdb::table_ddl& ddl, std::vector<change> changes,
                                    const mdb::table_ddl::waiting_fn& waiting = {}) {
    auto p = std::make_unique<prepared>();
    p->batch = merger.merge(std::move(changes));
    table_planner planner(options, mdb::mariadb_target_rules("sluice"));
    std::vector<dead_letter> refused;
    p->plans = planner.plan(p->batch, refused);
    REQUIRE(refused.empty());
    ddl.begin_batch();
    p->outcomes = ddl.prepare(conn, p->plans, rejects, waiting);
    return p;
  }

  mdb::table_shape shape(const std::string& table) {
    return mdb::read_table_shape(conn, {db, table});
  }
  std::string table(const std::string& name) const { return mdb::quote_table(db, name); }
};

TEST_CASE("mariadb table_ddl: a table is created from the stream's types, exact text keys") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  // 2- and 3-byte UTF-8 in a name (MariaDB's utf8mb3 identifiers hold no more: see below).
  const std::string smile = "pr\xC3\xA9nom_\xE2\x82\xAC_\xE4\xB8\xAD";
  auto p = w.prepare(ddl, {w.upsert("orders", "code", value::string("a"),
                                    {{"amount", value::number("12.50")},
                                     {"placed", value::string("2024-01-02T03:04:05.123456Z")},
                                     {"doc", value::json("{\"a\":1}")},
                                     {"raw", value::bytes("\x01\x02")},
                                     {smile, value::string("x")},
                                     {"n", value::number("1")}},
                                    {{"code", parsed_type("string"), ""},
                                     {"amount", parsed_type("decimal(12,2)"), ""},
                                     {"placed", parsed_type("timestamptz(6)"), ""},
                                     {"doc", parsed_type("json"), ""},
                                     {"raw", parsed_type("bytes"), ""},
                                     {smile, parsed_type("string(40)"), ""}})});
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].ok());
  CHECK(p->outcomes[0].changed);
  const mdb::table_shape s = w.shape("orders");
  REQUIRE(s.exists);
  CHECK(s.primary_key == std::vector<std::string>{"code"});
  const auto type = [&](const std::string& c) {
    const mdb::column_def* d = s.find(c);
    return d ? d->type + (d->collation.empty() ? "" : " " + d->collation) : "(missing)";
  };
  CHECK(type("code") == "varchar(768) utf8mb4_nopad_bin");
  CHECK(type("amount") == "decimal(12,2)");
  CHECK(type("placed") == "datetime(6)");
  CHECK(type("doc") == "json utf8mb4_bin");
  CHECK(type("raw") == "longblob");
  CHECK(type(smile) == "varchar(40) utf8mb4_nopad_bin");
  CHECK(type("n") == "decimal(65,30)");  // untyped number
  CHECK(type("_sluice_csn") == "varbinary(1024)");
  CHECK_FALSE(s.find("_sluice_csn")->nullable);
  CHECK(type("_sluice_updated_at") == "datetime(6)");
  // The shape is cached: the same batch again needs no DDL.
  CHECK(ddl.ready(p->plans));
  // Keys differing only in case or trailing spaces are three rows; 4-byte UTF-8 values fit.
  w.conn.exec("INSERT INTO " + w.table("orders") +
                  " (code, _sluice_csn) VALUES ('a', 'x'), ('A', 'x'), ('a ', 'x'), (?, 'x')",
              std::vector{param::text("\xF0\x9F\x98\x80")});
  CHECK(w.conn.query("SELECT count(*) FROM " + w.table("orders")).at(0, 0) == "4");
  CHECK(w.conn
            .query("SELECT count(*) FROM " + w.table("orders") + " WHERE code = ?",
                   std::vector{param::text("\xF0\x9F\x98\x80")})
            .at(0, 0) == "1");
}

TEST_CASE("mariadb table_ddl: evolve adds a column; with auto.evolve off the table is refused") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  w.prepare(ddl, {w.upsert("t", "id", value::number("1"), {{"a", value::string("x")}})});
  auto p = w.prepare(ddl, {w.upsert("t", "id", value::number("2"),
                                    {{"a", value::string("y")}, {"b", value::boolean(true)}})});
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].ok());
  CHECK(p->outcomes[0].changed);
  REQUIRE(w.shape("t").find("b"));
  CHECK(w.shape("t").find("b")->type == "tinyint(1)");
  CHECK(ddl.shape({w.db, "t"}).find("b"));  // cached as made

  // Another lane adds a column: refresh() (no DDL, any transaction) sees it.
  mdb::table_ddl other(w.options);
  w.prepare(other, {w.upsert("t", "id", value::number("4"), {{"z", value::string("z")}})});
  CHECK_FALSE(ddl.shape({w.db, "t"}).find("z"));
  ddl.refresh(w.conn, p->plans);
  CHECK(ddl.shape({w.db, "t"}).find("z"));

  w.options.auto_evolve = false;
  mdb::table_ddl strict(w.options);
  p = w.prepare(strict, {w.upsert("t", "id", value::number("3"), {{"c", value::number("1")}})});
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].error.find("lacks column c and auto.evolve is off") != std::string::npos);
  REQUIRE(w.rejects.size() == 1);
  CHECK(w.rejects[0].kind == dead_letter_kind::ddl_failed);
  CHECK_FALSE(w.shape("t").find("c"));
}

// The SELECTs this connection ran so far (refresh() reads information_schema by SELECTs).
long selects(mdb::connection& c) {
  return std::stol(c.query("SHOW SESSION STATUS LIKE 'Com_select'").at(0, 1).value_or("0"));
}

TEST_CASE("mariadb table_ddl: refresh() re-reads a shape only when the table's definition moved") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  auto p = w.prepare(ddl, {w.upsert("t", "id", value::number("1"), {{"a", value::string("x")}})});
  mdb::connection other(testing::mariadb_settings());
  const auto refresh = [&] {
    w.conn.exec("BEGIN");
    const long before = selects(w.conn);
    ddl.refresh(w.conn, p->plans);
    const long ran = selects(w.conn) - before;
    w.conn.exec("COMMIT");
    return ran;
  };
  // Read by prepare(), outside a transaction (perhaps while an ALTER ran): read again.
  CHECK(refresh() > 1);
  // Unchanged: the tables opened (their metadata locks), nothing read.
  CHECK(refresh() == 1);
  CHECK(refresh() == 1);
  // Another lane (or an operator) changes the table: the next batch reads it.
  other.exec("ALTER TABLE " + w.table("t") + " ADD COLUMN z varchar(10)");
  CHECK_FALSE(ddl.shape({w.db, "t"}).find("z"));
  CHECK(refresh() > 1);
  REQUIRE(ddl.shape({w.db, "t"}).find("z"));
  other.exec("ALTER TABLE " + w.table("t") + " MODIFY COLUMN z varchar(40)");
  CHECK(refresh() > 1);
  CHECK(ddl.shape({w.db, "t"}).find("z")->type == "varchar(40)");
  // An AUTO_INCREMENT counter moves with inserts, not with the shape.
  other.exec("ALTER TABLE " + w.table("t") + " ADD COLUMN n bigint NOT NULL AUTO_INCREMENT UNIQUE");
  CHECK(refresh() > 1);
  other.exec("INSERT INTO " + w.table("t") + " (id, _sluice_csn) VALUES (99, x'00')");
  CHECK(refresh() == 1);
  // A shape prepare() reads again (a column it lacks) is read again under the lock too.
  p = w.prepare(ddl, {w.upsert("t", "id", value::number("2"), {{"q", value::string("y")}})});
  CHECK(refresh() > 1);
  CHECK(refresh() == 1);
  // A dropped table: read as gone, and again until it is back.
  other.exec("DROP TABLE " + w.table("t"));
  CHECK(refresh() > 1);
  CHECK_FALSE(ddl.shape({w.db, "t"}).exists);
}

TEST_CASE("mariadb table_ddl: an adopted table whose key merges `a`, `A` or `a ` is refused") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  w.conn.exec("CREATE DATABASE " + mdb::quote_identifier(w.db));
  w.conn.exec("CREATE TABLE " + w.table("ci") +
              " (k varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY)");
  w.conn.exec("CREATE TABLE " + w.table("pad") +
              " (k varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY)");
  w.conn.exec("CREATE TABLE " + w.table("blob") + " (k text, PRIMARY KEY (k(20)))");
  w.conn.exec("CREATE TABLE " + w.table("fine") +
              " (k varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin PRIMARY KEY)");
  auto p = w.prepare(ddl, {w.upsert("ci", "k", value::string("a"), {}),
                           w.upsert("pad", "k", value::string("a"), {}),
                           w.upsert("blob", "k", value::string("a"), {}),
                           w.upsert("fine", "k", value::string("a"), {})});
  REQUIRE(p->outcomes.size() == 4);
  std::map<std::string, const mdb::ddl_outcome*> by_name;
  for (const auto& o : p->outcomes)
    by_name[o.table.name] = &o;
  CHECK(by_name["ci"]->key_refused);
  CHECK(by_name["ci"]->error.find("key column k has collation utf8mb4_general_ci") !=
        std::string::npos);
  CHECK(by_name["pad"]->error.find("utf8mb4_bin (PAD SPACE") != std::string::npos);
  CHECK(by_name["blob"]->error.find("key column k is text") != std::string::npos);
  CHECK(by_name["fine"]->ok());
  CHECK(w.rejects.size() == 3);
  for (const dead_letter& d : w.rejects)
    CHECK(d.kind == dead_letter_kind::rejected);
  // sluice's own columns were added to the adopted tables all the same (they are its).
  CHECK(w.shape("fine").find("_sluice_csn"));
}

TEST_CASE("mariadb table_ddl: DDL behind a metadata lock waits in slices, then goes through") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  w.prepare(ddl, {w.upsert("locked", "id", value::number("1"), {})});
  const std::string before = *w.conn.query("SELECT @@SESSION.lock_wait_timeout").at(0, 0);

  // Another session's open transaction has read the table: it holds a shared metadata lock
  // until it ends, and the ALTER waits for it.
  mdb::connection reader(testing::mariadb_settings());
  reader.exec("START TRANSACTION");
  reader.query("SELECT * FROM " + w.table("locked"));
  std::vector<std::string> waits;
  auto p = w.prepare(ddl, {w.upsert("locked", "id", value::number("2"), {{"x", value::null()}})},
                     [&](const std::string& why) {
                       waits.push_back(why);
                       if (waits.size() == 2) reader.exec("COMMIT");
                     });
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].ok());
  CHECK(waits.size() == 2);
  REQUIRE_FALSE(waits.empty());
  CHECK(waits[0].find("DDL on " + w.db + ".locked waits for its metadata lock") !=
        std::string::npos);
  CHECK(w.shape("locked").find("x"));
  // The session's own setting is back.
  CHECK(w.conn.query("SELECT @@SESSION.lock_wait_timeout").at(0, 0) == before);
}

TEST_CASE("mariadb table_ddl: a metadata lock held past the wait limit fails that table") {
  ddl_world w;
  w.options.ddl_lock_timeout = std::chrono::seconds(1);
  w.options.ddl_wait_limit = std::chrono::seconds(2);
  mdb::table_ddl ddl(w.options);
  w.prepare(ddl, {w.upsert("held", "id", value::number("1"), {})});
  mdb::connection reader(testing::mariadb_settings());
  reader.exec("START TRANSACTION");
  reader.query("SELECT * FROM " + w.table("held"));
  int waits = 0;
  auto p = w.prepare(ddl,
                     {w.upsert("held", "id", value::number("2"), {{"x", value::null()}}),
                      w.upsert("free", "id", value::number("1"), {{"x", value::null()}})},
                     [&](const std::string&) { ++waits; });
  reader.exec("COMMIT");
  REQUIRE(p->outcomes.size() == 2);
  const auto& free = p->outcomes[0].table.name == "free" ? p->outcomes[0] : p->outcomes[1];
  const auto& held = p->outcomes[0].table.name == "held" ? p->outcomes[0] : p->outcomes[1];
  CHECK(free.ok());
  CHECK(held.lock_timeout);
  CHECK(held.error.find("waited past 2 s") != std::string::npos);
  CHECK(waits >= 1);
  REQUIRE(w.rejects.size() == 1);
  CHECK(w.rejects[0].kind == dead_letter_kind::ddl_failed);
  CHECK(ddl.failures().contains({w.db, "held"}));
  CHECK(w.shape("free").find("x"));
}

TEST_CASE("mariadb table_ddl: one table's failing DDL does not stop another's") {
  ddl_world w;
  w.options.column_types[w.db + ".bad"]["v"] = "no such type(";
  mdb::table_ddl ddl(w.options);
  auto p =
      w.prepare(ddl, {w.upsert("bad", "id", value::number("1"), {{"v", value::number("1")}}),
                      w.upsert("good", "id", value::number("1"), {{"v", value::number("1")}})});
  REQUIRE(p->outcomes.size() == 2);
  CHECK_FALSE(p->outcomes[0].ok());                               // bad (by name order)
  CHECK(p->outcomes[0].error.find("4161") != std::string::npos);  // unknown data type
  CHECK(p->outcomes[1].ok());
  REQUIRE(w.rejects.size() == 1);
  CHECK(w.rejects[0].kind == dead_letter_kind::ddl_failed);
  CHECK(w.rejects[0].reason.find("cannot create or evolve the table") != std::string::npos);
  CHECK_FALSE(w.shape("bad").exists);
  CHECK(w.shape("good").exists);
  // A view of the table's name: refused, not mistaken for the table.
  w.conn.exec("CREATE VIEW " + w.table("seen") + " AS SELECT 1 AS id");
  p = w.prepare(ddl, {w.upsert("seen", "id", value::number("1"), {})});
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].error.find("not a base table") != std::string::npos);
}

TEST_CASE("mariadb table_ddl: a column name beyond utf8mb3 fails its table alone (1300)") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  auto p = w.prepare(ddl, {w.upsert("emoji", "id", value::number("1"),
                                    {{"smile_\xF0\x9F\x98\x80", value::number("1")}}),
                           w.upsert("plain", "id", value::number("1"), {{"v", value::null()}})});
  REQUIRE(p->outcomes.size() == 2);
  CHECK(p->outcomes[0].error.find("1300") != std::string::npos);
  CHECK(p->outcomes[1].ok());
  REQUIRE(w.rejects.size() == 1);
  CHECK(w.rejects[0].kind == dead_letter_kind::ddl_failed);
}

TEST_CASE("mariadb table_ddl: a keyless table is appended to, each position once") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  change c;
  c.table = w.catalog.intern(table_name{"", w.db, "events"});
  c.after = {{"what", value::string("x")}};
  c.seq = csn_builder().add(1).build();
  auto p = w.prepare(ddl, {c});
  REQUIRE(p->outcomes.size() == 1);
  CHECK(p->outcomes[0].ok());
  const mdb::table_shape s = w.shape("events");
  CHECK(s.primary_key.empty());
  CHECK(s.position_index);
  REQUIRE(s.find("_sluice_kafka_topic"));
  CHECK(s.find("_sluice_kafka_topic")->type == "varchar(249)");
  CHECK(s.find("_sluice_op"));
  CHECK(s.find("_sluice_csn")->type == "varbinary(1024)");
}

TEST_CASE("mariadb table_ddl: prepare() refuses to run inside a transaction") {
  ddl_world w;
  mdb::table_ddl ddl(w.options);
  w.conn.exec("START TRANSACTION");
  CHECK_THROWS_AS(w.prepare(ddl, {w.upsert("t", "id", value::number("1"), {})}), std::logic_error);
  w.conn.exec("ROLLBACK");
}

}  // namespace
}  // namespace sluice
