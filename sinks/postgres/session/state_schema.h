#pragma once

#include <string>
#include <string_view>

#include <pqxx/connection_base>

namespace sluice {

// sluice's own tables in the replica database (SPEC §4): offsets, dead letters, tombstones,
// pending fragments, the learned catalog, DDL history and registry schemas, under one schema
// (default "sluice") whose version is recorded in <schema>.schema_version. The names are a
// contract.
//
// Lifecycle: migrate() runs once per connection at start-up, before any batch. It takes a
// transaction-scoped advisory lock so that instances starting at once do not race, and
// brings the schema to the newest version in one transaction. Threading: none of its own.
class state_schema {
 public:
  // The version this build creates and expects.
  static constexpr int current_version = 7;

  explicit state_schema(std::string schema);

  // Creates or upgrades the schema; returns the version found before (0: none). Throws
  // std::runtime_error when the database holds a newer version than this build knows.
  int migrate(pqxx::connection_base& conn) const;

  const std::string& name() const { return _schema; }
  // The quoted, schema-qualified name of one of the state tables: "sluice"."offsets".
  std::string table(std::string_view name) const;

 private:
  std::string _schema;
  std::string _quoted;
};

}  // namespace sluice
