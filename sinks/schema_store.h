#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sluice::sink {

// One registry schema as the target keeps it.
struct stored_schema {
  std::string type;  // the registry's schemaType ("AVRO", …)
  std::string text;
};

// The schema store role, target-neutral: schemas fetched from a registry, kept in the sink's
// state across restarts (keyed by the registry's URL without its user info and the schema
// id), so that a restart during a registry outage still decodes what it decoded before.
// PostgreSQL's: postgres/state/pg_schema_store.h.
//
// Lifecycle: made by a target; its own connection, opened on first use and again after
// losing it. Threading: one call at a time. Both calls throw when the target is unreachable.
class schema_store {
 public:
  virtual ~schema_store() = default;
  virtual std::optional<stored_schema> load(const std::string& registry_url, int32_t id) = 0;
  virtual void save(const std::string& registry_url, int32_t id, const stored_schema& schema) = 0;
};

}  // namespace sluice::sink
