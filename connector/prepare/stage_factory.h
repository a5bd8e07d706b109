#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "connector/config/config.h"
#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/registry/schema_source.h"
#include "sinks/session_observer.h"

namespace sluice {

// Builds the decoders from the configuration: the only place that maps config keys onto the
// decoders' own option structs (so schemas never see the configuration; the sink's options
// are made in base/sink_options.h).

// The decoder for one topic's messages (its format override, else the global format).
// registry: where Confluent-framed messages find their schemas (make_connector_schema_source;
// null without schema.registry.url). Throws std::invalid_argument for a format not supported
// yet or invalid options.
std::unique_ptr<decoder> make_decoder(const config& cfg, std::string_view topic,
                                      table_catalog& catalog,
                                      std::shared_ptr<schema_source> registry = nullptr);

// Decoders for completed chunked records (DSQL), one per applier: for
// apply_options::chunk_decoders. Each runs on its applier's thread, so each owns its table
// catalog (the configured keys, and the target tables' primary keys through a key lookup
// of its own) instead of sharing the decode stage's.
// observer: the runtime's PostgreSQL health (nullptr: none).
std::function<std::unique_ptr<chunk_decoder>(std::function<bool()>)> chunk_decoder_factory(
    const config& cfg, session_observer* observer = nullptr);

}  // namespace sluice
