#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "connector/base/connector_state.h"
#include "connector/config/config.h"
#include "core/model/topic_partition.h"
#include "sinks/offsets.h"

namespace sluice {

// Taking over from a Kafka Connect sink's consumer group (offsets.takeover.group, SPEC §6a):
// a partition sluice has no offset for starts where the connector's group committed, so the
// switch re-reads at most what the connector had applied but not committed (harmless: the
// CSN guard, a NULL CSN lowest) instead of the whole topic or nothing of its backlog.
//
//   prepare(ours):  nothing to take over (no group, or sluice has an offset for every
//                   partition of its topics)            -> done, no broker call kept
//                   the group has live members (the connector still runs) or Kafka does not
//                   answer                              -> DEGRADED "takeover", asked again
//                                                          every few seconds, until a stop
//                   empty                               -> its committed offsets, read once
//   start(tp):      the group's committed offset of a partition sluice has none for
//
// Lifecycle: one per pipeline, prepared at start-up before sluice joins its own group.
// Threading: prepare() on the starting thread; start() afterwards on the consumer thread.
class takeover {
 public:
  takeover(const config& c, state_holder& state) : _config(c), _state(state) {}

  // False when stopped while waiting.
  bool prepare(const std::vector<stored_offset>& ours, const std::atomic<bool>& stop);
  std::optional<int64_t> start(const topic_partition& tp) const;
  const std::string& group() const { return _config.takeover_group; }

 private:
  // One attempt: "" when done (offsets read, or nothing to do), else what it waits for.
  std::string attempt(const std::vector<stored_offset>& ours);

  const config& _config;
  state_holder& _state;
  std::map<topic_partition, int64_t> _offsets;
};

}  // namespace sluice
