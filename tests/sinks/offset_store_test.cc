#include "sinks/postgres/state/offset_store.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

stored_offset stored(int32_t partition, std::optional<int64_t> next, int64_t epoch) {
  stored_offset s;
  s.topic = "t";
  s.partition = partition_id(partition);
  if (next) s.next = kafka_offset(*next);
  s.epoch = owner_epoch(epoch);
  return s;
}

partition_progress progress(int32_t partition, int64_t expected, int64_t next, int64_t epoch) {
  return {"t", partition_id(partition), owner_epoch(epoch), kafka_offset(expected),
          kafka_offset(next)};
}

TEST_CASE("an in-doubt commit is resolved by reading the offsets back") {
  const std::vector<partition_progress> batch = {progress(0, -1, 10, 3), progress(1, 5, 9, 3)};
  CHECK(resolve_commit(batch, {stored(0, 10, 3), stored(1, 9, 3)}) == commit_outcome::committed);
  CHECK(resolve_commit(batch, {stored(0, std::nullopt, 3), stored(1, 5, 3)}) ==
        commit_outcome::not_committed);
  // Another owner took a partition meanwhile: whatever happened, the work is not ours.
  CHECK(resolve_commit(batch, {stored(0, 10, 4), stored(1, 9, 3)}) == commit_outcome::stale);
  // Moved somewhere else, or half moved: not something one transaction does.
  CHECK(resolve_commit(batch, {stored(0, 12, 3), stored(1, 9, 3)}) == commit_outcome::stale);
  CHECK(resolve_commit(batch, {stored(0, 10, 3), stored(1, 5, 3)}) == commit_outcome::stale);
  CHECK(resolve_commit(batch, {stored(0, 10, 3)}) == commit_outcome::stale);  // row gone
}

}  // namespace
}  // namespace sluice
