#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/write/table_writer.h"
#include "sinks/plan/table_planner.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice::testing {

// One database with one table `t` the test creates by hand (with sluice's metadata columns),
// state tables in a database of their own, and the write path from changes: merge, plan, write
// in one transaction.
struct writer_world {
  mdb::connection conn{settings()};
  std::string db = testing::unique_name("writer");
  mdb::state_schema state{db + "_state"};
  table_catalog catalog;
  merge_engine merger;
  apply_options options;
  table_entry* table = catalog.intern(table_name{"", db, "t"});
  mdb::sql_dialect dialect = mdb::sql_dialect::mariadb();

  static mdb::connect_settings settings() {
    mdb::connect_settings s = testing::mariadb_settings();
    s.init = {
        "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
        "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
        "SET SESSION time_zone = '+00:00'",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"};
    return s;
  }

  explicit writer_world(const std::string& columns) {
    options.connector = "test";
    conn.exec("CREATE DATABASE " + mdb::quote_identifier(db));
    state.migrate(conn);
    conn.exec("CREATE TABLE " + t() + " (" + columns +
              ") DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin");
  }
  ~writer_world() {
    conn.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(db));
    conn.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(state.name()));
  }

  std::string t() const { return mdb::quote_table(db, "t"); }

  // The table as information_schema describes it (the reader is plan/'s; a test needs little).
  mdb::table_shape shape() {
    mdb::table_shape s;
    const std::vector<mdb::param> where{mdb::param::text(db), mdb::param::text("t")};
    const mdb::result cols = conn.query(
        "SELECT column_name, column_type, coalesce(collation_name, ''), is_nullable = 'YES' "
        "FROM information_schema.columns WHERE table_schema = ? AND table_name = ? "
        "ORDER BY ordinal_position",
        where);
    for (const auto& r : cols.rows)
      s.columns.push_back({*r[0], *r[1], *r[2], *r[3] == "1"});
    s.exists = !s.columns.empty();
    const mdb::result pk = conn.query(
        "SELECT column_name FROM information_schema.statistics WHERE table_schema = ? AND "
        "table_name = ? AND index_name = 'PRIMARY' ORDER BY seq_in_index",
        where);
    for (const auto& r : pk.rows)
      s.primary_key.push_back(*r[0]);
    s.position_index = !conn.query(
                                "SELECT 1 FROM information_schema.statistics WHERE "
                                "table_schema = ? AND table_name = ? AND "
                                "index_name = '_sluice_position'",
                                where)
                            .empty();
    return s;
  }

  change make(op_kind op, const std::string& key, int64_t n, image img = {}, bool partial = false) {
    change c;
    c.op = op;
    c.table = table;
    if (!key.empty() || op != op_kind::truncate) {
      auto k = make_row_key({"id"}, {value::string(key)});
      REQUIRE(k.ok());
      c.key = k.value();
      if (op == op_kind::upsert) img.insert(img.begin(), {"id", value::string(key)});
    }
    c.after = std::move(img);
    c.partial = partial;
    c.seq = csn_builder().add(n).build();
    return c;
  }
  change upsert(const std::string& key, int64_t n, image img, bool partial = false) {
    return make(op_kind::upsert, key, n, std::move(img), partial);
  }
  change remove(const std::string& key, int64_t n) { return make(op_kind::remove, key, n); }

  // Merges, plans and writes the changes in one transaction, committed.
  apply_stats apply(std::vector<change> changes) {
    apply_stats stats;
    const merged_batch batch = merger.merge(std::move(changes));
    table_planner planner(options, target_rules{64, {}});
    std::vector<dead_letter> rejects;
    const std::vector<table_plan> plans = planner.plan(batch, rejects);
    REQUIRE(rejects.empty());
    mdb::table_writer writer(options, state.table("tombstones"), dialect);
    const mdb::table_shape s = shape();
    conn.exec("START TRANSACTION");
    try {
      for (const table_plan& p : plans) {
        writer.truncate(conn, p, s, stats);
        writer.write(conn, p, s, 0, p.item_count(), stats);
      }
    } catch (...) {
      conn.exec("ROLLBACK");
      throw;
    }
    conn.exec("COMMIT");
    return stats;
  }

  // "k=v,…" of the rows ordered by key, NULL as ~.
  std::string rows(const std::string& columns = "id, v") {
    std::string out;
    for (const auto& r : conn.query("SELECT " + columns + " FROM " + t() + " ORDER BY id").rows) {
      if (!out.empty()) out += " | ";
      for (size_t i = 0; i < r.size(); ++i)
        out += (i ? "," : "") + r[i].value_or("~");
    }
    return out;
  }
};

inline std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (char c : bytes) {
    out.push_back(digits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(digits[static_cast<unsigned char>(c) & 0x0f]);
  }
  return out;
}

}  // namespace sluice::testing
