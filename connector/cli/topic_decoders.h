#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "connector/config/config.h"
#include "connector/runtime/connector_state.h"
#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// The decoders of the CLI commands that decode without consuming (decode, replay): one per
// topic, made on first use from the configuration (the topic's format override, else the
// global format), sharing one catalog that knows the configured keys — as the pipeline's —
// and, with schema.registry.url, one registry client for Confluent-framed messages (schemas
// cached in memory only: these commands change nothing in the state schema).
//
// Lifecycle: one per command run; the config must outlive it. Threading: one thread.
class topic_decoders {
 public:
  explicit topic_decoders(const config& c);
  // Throws std::invalid_argument when the topic's format is not supported (a configuration
  // error).
  decoder& for_topic(std::string_view topic);
  table_catalog& catalog() { return _catalog; }
  // Lets DSQL decoders find unconfigured keys in the target database (see table_catalog).
  void set_key_resolver(table_catalog::key_resolver resolver) {
    _catalog.set_key_resolver(std::move(resolver));
  }

 private:
  const config& _config;
  table_catalog _catalog;
  state_holder _state;             // the registry client's outages, logged
  std::atomic<bool> _stop{false};  // these commands end with their input
  std::shared_ptr<schema_source> _registry;
  std::map<std::string, std::unique_ptr<decoder>, std::less<>> _decoders;
};

}  // namespace sluice
