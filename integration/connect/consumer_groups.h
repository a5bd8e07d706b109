#pragma once

// A Kafka consumer group as an outsider sees it: its committed offsets (OffsetFetch, without
// joining the group, so asking never disturbs it) and how many members it has; and a
// partition's high watermark. What a test of a takeover from a Connect sink's group
// `connect-<name>` compares.

#include <cstdint>
#include <string>

namespace sluice::testing {

// The group's committed offset of topic's partition (the next offset it will read); -1 when it
// committed none.
int64_t committed_offset(const std::string& group, const std::string& topic, int32_t partition);

// The group's live members (0 when it is empty or unknown to the broker).
int group_members(const std::string& group);

// The partition's high watermark (the offset of its next message).
int64_t high_watermark(const std::string& topic, int32_t partition);

}  // namespace sluice::testing
