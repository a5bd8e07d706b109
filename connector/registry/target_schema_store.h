#pragma once

#include <memory>
#include <string>
#include <utility>

#include "connector/registry/schema_store.h"
#include "sinks/schema_store.h"

namespace sluice {

// The registry client's schema_store on the target's (sinks/schema_store.h): the sink keeps
// a schema's type and text under (registry URL, id) and knows nothing of schemas/; this turns
// them back into a registered_schema. One call per schema fetched or looked up, never per
// message.
//
// Lifecycle and threading: those of the store it wraps (one call at a time).
class target_schema_store final : public schema_store {
 public:
  explicit target_schema_store(std::unique_ptr<sink::schema_store> store)
      : _store(std::move(store)) {}

  std::shared_ptr<const registered_schema> load(const std::string& registry_url,
                                                schema_id id) override {
    auto stored = _store->load(registry_url, id.value());
    if (!stored) return nullptr;
    return std::make_shared<registered_schema>(
        registered_schema{id, std::move(stored->type), std::move(stored->text)});
  }
  void save(const std::string& registry_url, const registered_schema& schema) override {
    _store->save(registry_url, schema.id.value(), {schema.type, schema.text});
  }

 private:
  std::unique_ptr<sink::schema_store> _store;
};

}  // namespace sluice
