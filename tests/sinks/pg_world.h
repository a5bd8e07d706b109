#pragma once

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "sinks/apply_options.h"
#include "tests/sinks/pg_test_env.h"

namespace sluice::testing {

inline csn seq(int64_t n) {
  return csn_builder().add(n).build();
}

inline row_key key_of(const std::string& column, value v) {
  auto k = make_row_key({column}, {std::move(v)});
  REQUIRE(k.ok());
  return std::move(k.value());
}

// One test's world: a source schema (routed to a target schema of the same name), a state
// schema, a catalog, a merge engine and a connection for looking at the result.
struct pg_world {
  std::string dsn = test_dsn();
  std::string source_schema = unique_name("shop");
  std::string state = unique_name("sluice");
  table_catalog catalog;
  merge_engine merger;
  pqxx::connection look{dsn};

  pg_world() {
    pqxx::work tx(look);
    tx.exec("SET client_min_messages TO warning");
    tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(source_schema) + " CASCADE");
    tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(state) + " CASCADE");
    tx.commit();
  }

  apply_options options(const std::string& connector = "test") const {
    apply_options o;
    o.state_schema = state;
    o.connector = connector;
    return o;
  }

  table_entry* table(const std::string& name) {
    return catalog.intern(table_name{"", source_schema, name});
  }

  change upsert(table_entry* t, int64_t id, int64_t csn_n, image img) {
    change c;
    c.op = op_kind::upsert;
    c.table = t;
    c.key = key_of("id", value::number(std::to_string(id)));
    img.insert(img.begin(), column_value{"id", value::number(std::to_string(id))});
    c.after = std::move(img);
    c.seq = seq(csn_n);
    return c;
  }

  change remove(table_entry* t, int64_t id, int64_t csn_n) {
    change c;
    c.op = op_kind::remove;
    c.table = t;
    c.key = key_of("id", value::number(std::to_string(id)));
    c.seq = seq(csn_n);
    return c;
  }

  merged_batch merge(std::vector<change> changes) { return merger.merge(std::move(changes)); }

  // The single value of a query, or nothing for NULL / no row.
  std::optional<std::string> one(const std::string& sql) {
    pqxx::work tx(look);
    const pqxx::result r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return std::nullopt;
    return r[0][0].as<std::string>();
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql).value_or("0")); }

  std::string target(const std::string& table) const {
    return "\"" + source_schema + "\".\"" + table + "\"";
  }
};

}  // namespace sluice::testing
