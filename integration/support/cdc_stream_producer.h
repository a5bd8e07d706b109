#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::testing {

// The table a partition's changes go to: <base>_p<partition>.
std::string table_of(const std::string& base, int32_t partition);

// The replica state a change history implies, built while producing it.
struct expected_state {
  std::map<int64_t, int64_t> accounts;  // id → version (absent: deleted or never inserted)
  std::vector<int64_t> ledger;          // ids of the insert-only table, one per message
};

// Produces a Datastream CDC history into a topic from its own thread, in waves with a pause
// between them, so that the stream is still running while a test injects its faults.
// Two kinds of table: `accounts` rows are inserted, updated and deleted again and again
// (ordering; the final state hides lost intermediate versions), `ledger` gets a new row for
// every third message (a lost message is a missing row). Each partition has its own pair of
// tables (table_of), so that no two partitions' batches ever share a table lock (a test can
// block one member's tables only). Idempotent and acks=all: every message is delivered exactly
// once, whatever the brokers do.
//
// Lifecycle: start() → pause()/resume()… → finish(); expected() once finished. Threading: the
// accessors may be called from any thread while it runs.
class stream_producer {
 public:
  stream_producer(const std::string& bootstraps, std::string topic, int partitions,
                  std::string accounts_table, std::string ledger_table);
  ~stream_producer();
  stream_producer(const stream_producer&) = delete;
  stream_producer& operator=(const stream_producer&) = delete;

  // Produces waves of per_wave messages until finish(), then `more` waves, and flushes.
  void start(int per_wave, std::chrono::milliseconds pause);
  // Holds the waves back until resume() (or finish()).
  void pause() { _paused = true; }
  void resume() { _paused = false; }
  void finish(int more);

  int64_t produced() const { return _produced; }
  int64_t failures() const { return _failures; }
  const expected_state& expected() const { return _expected; }
  std::map<int32_t, int64_t> delivered_per_partition() const;
  // What the brokers say, not what the producer thinks.
  std::map<int32_t, int64_t> high_watermarks() const;

 private:
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque);
  void produce_next();

  std::string _topic;
  int _partitions;
  std::string _accounts_table, _ledger_table;
  rd_kafka_t* _rk = nullptr;
  int64_t _sequence = 0;
  expected_state _expected;  // written by the producer thread; read after finish()
  std::atomic<int64_t> _produced{0};
  std::atomic<int64_t> _failures{0};
  std::atomic<int> _waves_left{1 << 30};
  std::atomic<bool> _paused{false};
  mutable std::mutex _mutex;
  std::map<int32_t, int64_t> _delivered;  // partition → messages delivered
  std::thread _thread;                    // last: joined before the members it uses go
};

}  // namespace sluice::testing
