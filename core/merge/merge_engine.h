#pragma once

#include <cstdint>
#include <vector>

#include "core/merge/merged_batch.h"
#include "core/model/change.h"

namespace sluice {

// Collapses one batch of changes per (table, canonical key) by CSN (SPEC §4):
//   for each key:   upsert_seq = max CSN of its upserts, delete_seq = max CSN of its deletes
//                   (a key change deletes its old key at the change's CSN);
//                   every column holds the value of the highest-CSN upsert image carrying
//                   it, if that image is not below delete_seq;
//                   same CSN + same image = duplicate; same CSN + different images = one kept
//                   by a fixed rule (the greater value), and counted.
// The result does not depend on the order of the input: any permutation or duplication of
// the same changes gives the same merged batch.
//
// Stage: merge (after decode, before apply). Threading: one instance per pipeline thread; it
// keeps scratch buffers between calls so a steady stream of batches does not reallocate.
class merge_engine {
 public:
  merged_batch merge(std::vector<change>&& changes);

 private:
  struct entry {
    table_entry* table;
    const row_key* key;
    uint64_t prefix;  // first 8 bytes of key->canonical, big-endian: most compares end here
    uint32_t index;   // into the input vector
    bool old_key;     // the entry is the delete half of a key change
  };
  std::vector<entry> _entries;
};

}  // namespace sluice
