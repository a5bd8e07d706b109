#include "sinks/offsets.h"

#include <algorithm>

namespace sluice {

commit_outcome resolve_commit(const std::vector<partition_progress>& progress,
                              const std::vector<stored_offset>& stored) {
  size_t moved = 0, kept = 0;
  for (const partition_progress& p : progress) {
    auto it = std::find_if(stored.begin(), stored.end(), [&](const stored_offset& s) {
      return s.topic == p.topic && s.partition == p.partition;
    });
    if (it == stored.end() || it->epoch != p.epoch) return commit_outcome::stale;
    if (p.next == p.expected) continue;
    const bool at_next = it->next && *it->next == p.next;
    const bool at_expected =
        p.expected.value() < 0 ? !it->next : (it->next && *it->next == p.expected);
    if (at_next) {
      ++moved;
    } else if (at_expected) {
      ++kept;
    } else {
      return commit_outcome::stale;
    }
  }
  if (kept == 0) return commit_outcome::committed;
  if (moved == 0) return commit_outcome::not_committed;
  return commit_outcome::stale;
}

}  // namespace sluice
