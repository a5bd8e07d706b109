#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "connector/base/connector_state.h"
#include "connector/config/config.h"
#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// The decoders of one prepare stage: one per topic, made on first use from the
// configuration (the topic's format override, else the global format), sharing one catalog
// that knows the configured keys and one schema source for Confluent-framed messages.
//
// Two ways to make it: on a catalog and schema source the caller owns (the pipeline's,
// whose registry client persists schemas in the state schema), or standalone for the CLI
// commands that decode without consuming (decode, replay, dead-letters replay): a catalog
// of its own and, with schema.registry.url, a registry client that caches schemas in memory
// only (these commands change nothing in the state schema).
//
// Lifecycle: the config (and a given catalog) must outlive it. Threading: one thread.
class topic_decoders {
 public:
  // Standalone: its own catalog (with the configured keys) and registry client.
  explicit topic_decoders(const config& c);
  // On the caller's catalog; the schema source is set before the first message.
  topic_decoders(const config& c, table_catalog& catalog);

  // Throws std::invalid_argument when the topic's format is not supported (a configuration
  // error).
  decoder& for_topic(std::string_view topic);
  table_catalog& catalog() { return _catalog; }
  // Where the decoders made from now on find Confluent-framed messages' schemas.
  void set_schema_source(std::shared_ptr<schema_source> registry) {
    _registry = std::move(registry);
  }

 private:
  const config& _config;
  std::unique_ptr<table_catalog> _own_catalog;  // standalone only
  table_catalog& _catalog;
  state_holder _state;             // a standalone registry client's outages, logged
  std::atomic<bool> _stop{false};  // standalone commands end with their input
  std::shared_ptr<schema_source> _registry;
  std::map<std::string, std::unique_ptr<decoder>, std::less<>> _decoders;
};

}  // namespace sluice
