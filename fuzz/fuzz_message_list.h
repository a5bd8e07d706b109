#pragma once

#include <string_view>
#include <vector>

namespace sluice::fuzz {

// Several Kafka messages in one fuzz input, so that what one message teaches (GoldenGate
// metadata and schema records, learned keys) reaches the messages after it while every
// input still reproduces on its own. Parts are separated by a line holding only "%%":
//
//   {"op_type":"OBJECT_METADATA",...}
//   %%
//   {"op_type":"INSERT",...}
//
// An input without the separator is one part.
inline constexpr std::string_view message_separator = "\n%%\n";

std::vector<std::string_view> split_messages(std::string_view input);

}  // namespace sluice::fuzz
