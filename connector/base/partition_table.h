#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "core/model/named_type.h"
#include "core/model/topic_partition.h"

namespace sluice {

// What the connector knows of each partition it owns. Written by the consumer thread
// (claims, dispatch, fencing) and by apply lanes (commits); every method locks.
class partition_table {
 public:
  struct entry {
    owner_epoch epoch{0};
    kafka_offset committed{-1};   // next offset stored in PostgreSQL; -1: none yet
    kafka_offset dispatched{-1};  // next offset after the last batch handed to a lane
    size_t lane = 0;
    int64_t high_watermark = -1;  // from the consumer, for lag
  };

  void claim(const topic_partition& tp, owner_epoch epoch, kafka_offset committed, size_t lane);
  void remove(const topic_partition& tp);
  bool owns(const topic_partition& tp) const;
  std::optional<entry> get(const topic_partition& tp) const;
  // The expected offset for the next batch of tp (its compare-and-set guard), and records
  // that the batch moves it to next. Nothing when tp is no longer owned.
  std::optional<kafka_offset> dispatch(const topic_partition& tp, kafka_offset next);
  void committed(const topic_partition& tp, kafka_offset next);
  void high_watermark(const topic_partition& tp, int64_t hw);
  // After abandoned work: what was dispatched falls back to what is committed (of every
  // partition, or of one).
  void rewind_to_committed();
  void rewind_to_committed(const topic_partition& tp);
  std::vector<std::pair<topic_partition, entry>> snapshot() const;

 private:
  mutable std::mutex _mutex;
  std::map<topic_partition, entry> _entries;
};

}  // namespace sluice
