#pragma once

#include <atomic>
#include <memory>

#include "schemas/registry/schema_source.h"

namespace sluice {

struct config;
class state_holder;

// The connector's schema_source, for the pipeline (or `replay`) to hand to the decoders of
// Confluent-framed messages: a schema_registry_client over the configured registry, which
// reports its outages as the dependency "schema registry" of `state` (DEGRADED), ends its
// waits when `stop_requested` becomes true, and stores schemas in the state schema's
// registry_schemas table (the target's DSN and state schema: postgres.* or mariadb.*).
//
// nullptr when no registry is configured (schema.registry.url and its aliases unset).
// `state` and `stop_requested` must outlive what is returned.
std::shared_ptr<schema_source> make_connector_schema_source(const config& c, state_holder& state,
                                                            const std::atomic<bool>& stop_requested,
                                                            bool persist = true);

// The dependency name the registry's outages are reported under.
inline constexpr const char* schema_registry_dependency = "schema registry";

}  // namespace sluice
