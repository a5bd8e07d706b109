#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "connector/config/config.h"
#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/registry/schema_source.h"
#include "sinks/postgres/apply_options.h"
#include "sinks/postgres/session/retry_policy.h"
#include "sinks/postgres/session/session_observer.h"
#include "sinks/postgres/session/session_options.h"

namespace sluice {

// Builds each stage's options from the configuration: the only place that maps config keys
// onto the decoders' and the applier's own option structs (so schemas and sinks never see
// the configuration).

// The decoder for one topic's messages (its format override, else the global format).
// registry: where Confluent-framed messages find their schemas (make_connector_schema_source;
// null without schema.registry.url). Throws std::invalid_argument for a format not supported
// yet or invalid options.
std::unique_ptr<decoder> make_decoder(const config& cfg, std::string_view topic,
                                      table_catalog& catalog,
                                      std::shared_ptr<schema_source> registry = nullptr);

apply_options make_applier_options(const config& cfg);

// Every PostgreSQL session's settings (postgres.*: DSN, state schema, timeouts, keepalives).
session_options make_session_options(const config& cfg);
// How the connector's sessions retry: outages waited out (postgres.retry.timeout, forever by
// default), statement-level errors bounded (errors.retry.max, errors.retry.backoff.max).
retry_policy make_retry_policy(const config& cfg);

// Decoders for completed chunked records (DSQL), one per applier: for
// apply_options::chunk_decoders. Each runs on its applier's thread, so each owns its table
// catalog (the configured keys, and the target tables' primary keys through a key lookup
// of its own) instead of sharing the decode stage's.
// observer: the runtime's PostgreSQL health (nullptr: none).
std::function<std::unique_ptr<chunk_decoder>(std::function<bool()>)> chunk_decoder_factory(
    const config& cfg, session_observer* observer = nullptr);

}  // namespace sluice
