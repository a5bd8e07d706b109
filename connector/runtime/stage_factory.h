#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "connector/config/config.h"
#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "sinks/postgres/apply_options.h"

namespace sluice {

// Builds each stage's options from the configuration: the only place that maps config keys
// onto the decoders' and the applier's own option structs (so schemas and sinks never see
// the configuration).

// The decoder for one topic's messages (its format override, else the global format).
// Throws std::invalid_argument for a format not supported yet or invalid options.
std::unique_ptr<decoder> make_decoder(const config& cfg, std::string_view topic,
                                      table_catalog& catalog);

apply_options make_applier_options(const config& cfg);

// Decoders for completed chunked records (DSQL), one per applier: for
// apply_options::chunk_decoders. Each runs on its applier's thread, so each owns its table
// catalog (the configured keys, and the target tables' primary keys through a key lookup
// of its own) instead of sharing the decode stage's.
std::function<std::unique_ptr<chunk_decoder>()> chunk_decoder_factory(const config& cfg);

}  // namespace sluice
