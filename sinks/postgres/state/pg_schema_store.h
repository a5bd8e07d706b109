#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <pqxx/connection>

#include "sinks/schema_store.h"
#include "sinks/session_options.h"

namespace sluice {

// The schema store role (sinks/schema_store.h) in sluice's state schema:
// <state schema>.registry_schemas (state schema version 5), one row per (registry URL, id),
// written once, never updated (an id names one schema for good in a registry).
//
// Lifecycle: opens its own connection (application_name sluice:registry, the connector's
// connect timeout, keepalives and statement limits) on first use and again after losing it;
// the schema is expected migrated (the pipeline migrates before it decodes). Threading: one
// call at a time (schema_registry_client serialises them).
class pg_schema_store final : public sink::schema_store {
 public:
  explicit pg_schema_store(const session_options& options);
  ~pg_schema_store() override;

  std::optional<sink::stored_schema> load(const std::string& registry_url, int32_t id) override;
  void save(const std::string& registry_url, int32_t id,
            const sink::stored_schema& schema) override;

 private:
  pqxx::connection& connection();
  template <typename F>
  auto with_connection(F&& f);

  std::string _conninfo;
  std::string _limits_sql;
  std::string _table;
  std::unique_ptr<pqxx::connection> _conn;
};

}  // namespace sluice
