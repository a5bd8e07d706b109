#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "connector/source/kafka_handles.h"
#include "core/model/batch_records.h"
#include "core/model/named_type.h"
#include "core/model/topic_partition.h"

namespace sluice {

struct kafka_settings {
  std::vector<std::pair<std::string, std::string>> properties;  // passed to librdkafka as is
  std::vector<std::string> topics;                              // or
  std::string topics_regex;                                     // "^..." pattern subscription
};

// Receives partition assignment changes. on_assigned runs inside poll(), before any message
// of those partitions is returned, and says where each partition starts (PostgreSQL is the
// truth for offsets, SPEC §4); the partitions start resumed, whatever paused them before, and
// on_assigned may pause them. on_revoked runs before the partitions are given up.
class assignment_listener {
 public:
  // A start offset that says: not known yet. The partition is assigned at its log start and
  // paused at once; the listener seeks it (seek()) and resumes it once it knows where it
  // starts. Its messages fetched meanwhile are the listener's to drop.
  static constexpr int64_t held = RD_KAFKA_OFFSET_INVALID;

  virtual ~assignment_listener() = default;
  // Returns one start offset per partition, in order: an offset, RD_KAFKA_OFFSET_BEGINNING /
  // RD_KAFKA_OFFSET_END, or held.
  virtual std::vector<int64_t> on_assigned(const std::vector<topic_partition>& parts) = 0;
  virtual void on_revoked(const std::vector<topic_partition>& parts, bool lost) = 0;
};

// A failed TLS handshake (a certificate that does not verify) or a SASL login the broker
// refused: librdkafka retries them forever, but only a person can fix them (SPEC §5: FAILED,
// like a login PostgreSQL refuses). librdkafka hands them to the error callback.
bool is_refusal(rd_kafka_resp_err_t err);

// A librdkafka consumer-group member: cooperative-sticky assignment, no automatic offset
// commit or store (sluice commits offsets in PostgreSQL, then asynchronously to Kafka so
// that standard lag tools work).
//
// Lifecycle: construct (subscribes) → poll()… → close() (leaves the group). Threading: one
// thread calls every method; the listener and librdkafka's error callback are called on that
// thread from within poll().
class kafka_consumer {
 public:
  kafka_consumer(const kafka_settings& settings, assignment_listener& listener);
  ~kafka_consumer();
  kafka_consumer(const kafka_consumer&) = delete;
  kafka_consumer& operator=(const kafka_consumer&) = delete;

  // Appends up to max messages to out, and stops once those appended hold max_bytes (keys
  // and values; the message that reaches it is kept), waiting at most `wait` in total.
  // Errors that are not messages (partition EOF, transient broker errors) are consumed here;
  // fatal consumer errors throw, and so do a failed TLS handshake (a certificate that does
  // not verify) and refused SASL credentials: neither goes away by waiting.
  size_t poll(std::vector<kafka_message>& out, size_t max, size_t max_bytes,
              std::chrono::milliseconds wait);

  // Kafka's committed offsets, for lag tools only; failures are logged, not fatal.
  void commit_async(const std::vector<partition_progress>& progress);
  void pause(const std::vector<topic_partition>& parts);
  void pause_all();
  void resume_all();
  // Repositions assigned partitions (offsets in the list's .offset fields).
  void seek(rd_kafka_topic_partition_list_t* parts);
  void resume(const std::vector<topic_partition>& parts);
  // High watermark of a partition from the last fetch (cached; no broker round trip).
  int64_t high_watermark(const topic_partition& tp);
  // The log's start and end offsets, asked of the broker (waiting at most `wait`); nothing
  // when it did not answer.
  std::optional<std::pair<int64_t, int64_t>> query_watermarks(const topic_partition& tp,
                                                              std::chrono::milliseconds wait);

  // A partition whose fetch position the log no longer holds: librdkafka's own reset is off
  // (auto.offset.reset=error, set here whatever the configuration says), so it stopped
  // fetching it and said so; the pipeline decides (offsets.out.of.range).
  struct out_of_range {
    topic_partition partition;
    int64_t offset = -1;  // the position it could not fetch
    std::string what;     // librdkafka's words
  };
  // What poll() met since the last call.
  std::vector<out_of_range> take_out_of_range();
  // Fetches an assigned partition from `offset` again after out_of_range: librdkafka refuses
  // to seek a partition whose fetcher stopped on the error (__STATE), so it is unassigned and
  // assigned again there (cooperative assignment allows it outside a rebalance).
  void restart_at(const topic_partition& tp, int64_t offset);
  // librdkafka said every broker is down (__ALL_BROKERS_DOWN) and none has answered since:
  // librdkafka reconnects by itself; the connector shows DEGRADED meanwhile.
  bool brokers_down() const { return _brokers_down; }
  // While brokers_down(): a metadata request, waiting at most `wait`; an answer clears it.
  void probe_brokers(std::chrono::milliseconds wait);
  // The group gave this member an id (its JoinGroup was answered).
  bool joined() const;
  // Leaves the group. A member that joined but was never assigned first waits (bounded) for
  // its first assignment: librdkafka 2.0 aborts when a cooperative-sticky consumer is destroyed
  // between its JoinGroup and SyncGroup answers (librdkafka #4312, fixed in 2.3.0). The
  // listener hears nothing of an assignment that arrives while closing.
  void close();

 private:
  static void rebalance_trampoline(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                   rd_kafka_topic_partition_list_t* parts, void* opaque);
  // librdkafka's error callback, served from within rd_kafka_consumer_poll() (the main queue
  // is forwarded to the consumer's): logs the error, keeps a TLS or SASL refusal for poll().
  static void error_trampoline(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  void on_rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts);

  assignment_listener& _listener;
  std::exception_ptr _listener_error;  // thrown in the rebalance callback, rethrown by poll()
  std::string _refused;                // the first TLS or SASL refusal; poll() throws it
  kafka_handle _handle;                // destroyed last among handles
  std::atomic<bool> _closed{false};    // read by the apply lanes (commit_async)
  bool _brokers_down = false;
  bool _synced = false;   // a rebalance callback ran: the group's assignor state exists
  bool _closing = false;  // close() polls for the first assignment: the listener is left out
  std::vector<out_of_range> _out_of_range;
};

}  // namespace sluice
