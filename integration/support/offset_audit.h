#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::testing {

// Records every move of a connector's committed offsets in sluice.offsets, as PostgreSQL
// commits it: a trigger appends (old next_offset, new next_offset) to an audit table in the
// same transaction as the batch it commits, so aborted batches leave nothing behind.
//
// Each committed batch covers the offsets [old, new) of its partitions. Exactly-once apply
// means that, per partition, these ranges chain without gap or overlap from the first commit
// (old NULL) to the high watermark: a batch applied twice overlaps, a lost one leaves a gap,
// an offset moving backwards breaks the chain.
//
// Lifecycle: construct after sluice created its state schema and before the first commit
// (the test starts producing afterwards); the destructor drops the trigger. Threading: one.
class offset_audit {
 public:
  explicit offset_audit(std::string connector);
  ~offset_audit();
  offset_audit(const offset_audit&) = delete;
  offset_audit& operator=(const offset_audit&) = delete;

  // What breaks the chain of topic's partitions, which must end at the given high watermarks
  // (partition → next offset); empty when every message was committed exactly once.
  std::vector<std::string> violations(const std::string& topic,
                                      const std::map<int32_t, int64_t>& high_watermarks) const;
  size_t commits() const;

 private:
  std::string _connector;
  std::string _trigger;
};

// Polls a connector's sluice.offsets every 100 ms from its own thread and remembers any
// offset that went backwards (a coarser, trigger-free view of the same property).
class offset_watch {
 public:
  explicit offset_watch(std::string connector);
  ~offset_watch();
  void stop();
  std::vector<std::string> backwards() const;
  size_t polls() const { return _polls; }

 private:
  std::string _connector;
  std::atomic<bool> _stop{false};
  std::atomic<size_t> _polls{0};
  mutable std::mutex _mutex;
  std::map<std::string, int64_t> _max;
  std::vector<std::string> _backwards;
  std::thread _thread;  // last: started once the members above exist
};

}  // namespace sluice::testing
