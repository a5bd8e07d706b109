#pragma once

// What end-to-end tests ask of the replica and of sluice's state tables (in the `sluice`
// state schema), through services.h's query().

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace sluice::testing {

// A query cell as text, "<null>" for NULL.
std::string str(const std::optional<std::string>& v);

// The sum of a connector's next offsets in sluice.offsets: how many messages it committed
// (topics whose offsets start at 0).
int64_t committed_messages(const std::string& connector);

// Waits until the connector committed `total` messages (sluice.offsets may not exist yet).
bool caught_up(const std::string& connector, int64_t total,
               std::chrono::seconds timeout = std::chrono::seconds(60));

// Rows in sluice.dead_letters for a topic, and their reasons one per line.
int64_t dead_letter_count(const std::string& topic);
std::string dead_letter_reasons(const std::string& topic);

// format_type() of every column of schema.table, sluice's own (_sluice_*) aside: column → type.
std::map<std::string, std::string> column_types(const std::string& schema,
                                                const std::string& table);

// A loopback TCP port nothing listens on right now (for metrics.listen).
uint16_t free_port();

}  // namespace sluice::testing
