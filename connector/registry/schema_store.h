#pragma once

#include <memory>
#include <string>

#include "schemas/registry/schema_source.h"

namespace sluice {

// Where schemas fetched from a registry are kept across restarts, so that a restart during a
// registry outage still decodes what it decoded before (sluice.registry_schemas: see
// sinks/schema_store.h and target_schema_store.h). Keyed by the registry's URL without its user
// info (never a password: url_without_user_info) and the schema id.
//
// Threading: called from the decode threads through schema_registry_client, one call at a
// time (the client serialises them). Both may throw when the store itself is unreachable; the
// client then goes on without it.
class schema_store {
 public:
  virtual ~schema_store() = default;
  virtual std::shared_ptr<const registered_schema> load(const std::string& registry_url,
                                                        schema_id id) = 0;
  virtual void save(const std::string& registry_url, const registered_schema& schema) = 0;
};

}  // namespace sluice
