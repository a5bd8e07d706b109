#pragma once

#include <stdexcept>
#include <string>

namespace sluice {

// The offsets compare-and-set of a batch failed (SPEC §4): another owner claimed one of its
// partitions (a newer epoch), or the stored offset is not the one the batch started from.
// The batch transaction was rolled back; the caller abandons the work — it must not retry
// it as if nothing happened — and re-reads its assignment.
class stale_epoch_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sluice
