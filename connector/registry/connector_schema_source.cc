#include "connector/registry/connector_schema_source.h"

#include "connector/base/connector_state.h"
#include "connector/base/sink_options.h"
#include "connector/config/config.h"
#include "connector/registry/schema_registry_client.h"
#include "connector/registry/target_schema_store.h"

namespace sluice {

std::shared_ptr<schema_source> make_connector_schema_source(const config& c, state_holder& state,
                                                            const std::atomic<bool>& stop_requested,
                                                            bool persist) {
  if (c.schema_registry.effective_url().empty()) return nullptr;
  schema_registry_hooks hooks;
  hooks.degraded = [&state](const std::string& reason) {
    state.degrade(schema_registry_dependency, reason);
  };
  hooks.stop_requested = [&stop_requested] { return stop_requested.load(); };
  std::shared_ptr<schema_store> store;
  if (persist) store = std::make_shared<target_schema_store>(make_target(c)->make_schema_store());
  return std::make_shared<schema_registry_client>(registry_client_options(c.schema_registry),
                                                  std::move(hooks), std::move(store));
}

}  // namespace sluice
