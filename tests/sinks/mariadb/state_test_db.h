#pragma once

#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice::testing {

// A state database of its own for one test (migrated with state_schema), dropped at the end;
// `conn` runs as sluice's sessions do (UTC, strict, READ COMMITTED).
struct state_test_db {
  static mdb::connect_settings settings() {
    mdb::connect_settings s = mariadb_settings();
    s.init = {"SET time_zone = '+00:00'",
              "SET sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'",
              "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"};
    return s;
  }

  explicit state_test_db(const std::string& prefix)
      : conn(settings()), name(unique_name(prefix)), schema(name) {
    schema.migrate(conn);
  }
  ~state_test_db() {
    try {
      mdb::connection c(settings());
      c.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(name));
    } catch (...) {
    }
  }
  // Runs f(conn) between START TRANSACTION and COMMIT (ROLLBACK when it throws).
  template <typename F>
  auto in_tx(F&& f) {
    return in_tx(conn, f);
  }
  template <typename F>
  static auto in_tx(mdb::connection& c, F&& f) {
    c.exec("START TRANSACTION");
    try {
      if constexpr (std::is_void_v<decltype(f(c))>) {
        f(c);
        c.exec("COMMIT");
      } else {
        auto out = f(c);
        c.exec("COMMIT");
        return out;
      }
    } catch (...) {
      if (!c.broken()) c.exec("ROLLBACK");
      throw;
    }
  }

  mdb::connection conn;
  std::string name;
  mdb::state_schema schema;
};

}  // namespace sluice::testing
