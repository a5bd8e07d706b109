#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/schema_store.h"

namespace sluice::mdb {

// <state db>.registry_schemas on MariaDB: one row per (registry URL, id), written once, never
// updated (an id names one schema for good in a registry): the queries of the schema store
// role (sinks/schema_store.h; PostgreSQL's is postgres/state/pg_schema_store.h, which opens its
// own connection; on MariaDB the role at the root owns it and calls these).
// Holds no connection. Threading: none of its own.
class schema_store {
 public:
  explicit schema_store(const state_schema& schema);

  std::optional<sink::stored_schema> load(connection& conn, const std::string& registry_url,
                                          int32_t id) const;
  // A schema already stored under this id stays as it is.
  void save(connection& conn, const std::string& registry_url, int32_t id,
            const sink::stored_schema& schema) const;

 private:
  std::string _table;
};

}  // namespace sluice::mdb
