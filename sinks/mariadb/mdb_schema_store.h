#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/schema_store.h"
#include "sinks/session_options.h"

namespace sluice::mdb {

// The schema store role on MariaDB (sinks/schema_store.h; PostgreSQL's:
// postgres/state/pg_schema_store.h): its own connection, opened on first use (the state
// database migrated) and again after a failure; the queries are state/schema_store.h's.
// Lifecycle: made by mdb_target. Threading: one call at a time; both throw when unreachable.
class mdb_schema_store final : public sink::schema_store {
 public:
  explicit mdb_schema_store(const session_options& options);
  ~mdb_schema_store() override;

  std::optional<sink::stored_schema> load(const std::string& registry_url, int32_t id) override;
  void save(const std::string& registry_url, int32_t id,
            const sink::stored_schema& schema) override;

 private:
  connection& open();
  template <typename F>
  auto with_connection(F&& f);

  connect_settings _settings;
  state_schema _schema;
  std::unique_ptr<connection> _conn;
};

}  // namespace sluice::mdb
