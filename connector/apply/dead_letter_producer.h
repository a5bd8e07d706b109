#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "connector/source/kafka_handles.h"
#include "core/model/batch_records.h"

namespace sluice {

struct dead_letter_producer_options {
  std::string connector;  // __connect.errors.connector.name
  // How long construction waits for the broker to say the topic's max.message.bytes; without
  // an answer the producer's own message.max.bytes bounds the records until a broker refusal
  // teaches a smaller bound.
  std::chrono::milliseconds describe_timeout{10'000};
  // How long send() waits for its delivery reports; 0: librdkafka's message.timeout.ms and a
  // margin (librdkafka reports every message within message.timeout.ms).
  std::chrono::milliseconds delivery_timeout{0};
  // Told why when a send() fails (the topic unwritable, the broker away: the connector goes
  // DEGRADED while its lanes send again), and "" at the first send() that succeeds after.
  // Called on the sending lane's thread.
  std::function<void(const std::string& why)> on_health;
};

// A dead letter was not delivered (a broker refusal, the topic missing or read-only, a
// timeout): the batch must not commit. Transient by nature: the lane waits and sends again.
class dead_letter_queue_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// errors.deadletterqueue.topic.name (SPEC §4, as Kafka Connect does it): each dead letter is
// produced with its original key, value and headers, plus headers naming the reason and the
// origin, sluice's and Kafka Connect's (dead_letter_record.h). A letter larger than the topic
// takes is cut to fit and says so (__sluice.truncated); the full bytes are in
// sluice.dead_letters. send() returns only when every message is acknowledged, so the batch
// that dead-lettered them commits after they are durable in Kafka.
//
//   construct: DescribeConfigs → bound = min(topic max.message.bytes, message.max.bytes)
//   send:      letters cut to the bound → produced → their reports awaited
//              refused as too large → the bound lowered, those letters cut to half, sent once
//              more → awaited; any other failure, or a timeout → throw (the batch does not
//              commit)
//   destroy:   what is still queued is purged and its reports served
//
// Delivery state lives on the heap, shared by a send() call and each of its messages, and is
// freed by whichever lets go last: a report arriving after send() gave up (timeout, throw) or
// served by another lane's poll never writes into freed memory.
//
// Threading: send() may be called from several lanes at once (librdkafka's producer is
// thread-safe; a report may be served by any lane's poll; each call waits for its own).
class dead_letter_producer {
 public:
  dead_letter_producer(const std::vector<std::pair<std::string, std::string>>& kafka_properties,
                       std::string topic, dead_letter_producer_options options = {});
  ~dead_letter_producer();
  dead_letter_producer(const dead_letter_producer&) = delete;
  dead_letter_producer& operator=(const dead_letter_producer&) = delete;

  // Throws dead_letter_queue_error when a message cannot be delivered (the batch must not
  // commit).
  void send(const std::vector<dead_letter>& letters);
  void send(const std::vector<const dead_letter*>& letters);

  // The largest record sent whole, its framing included: the topic's bound less the record
  // batch's framing; lowered when the broker refuses a record as too large.
  size_t record_budget() const { return _budget.load(); }
  // Whether the last send() failed (until one succeeds, or the batch is withdrawn).
  bool unavailable() const { return _unavailable.load(); }
  // The batch whose letters could not be sent was given up (a rebalance, a stop): nothing
  // waits on the topic any more, so it no longer holds the connector DEGRADED; the next
  // send() that fails says so again.
  void withdrawn() { health(""); }

  struct send_state;  // one send()'s reports (dead_letter_producer.cc)

 private:
  void deliver(const std::vector<const dead_letter*>& letters);
  // Queues letters[i] cut to budgets[i]; sizes[i] is the record's size as queued. A letter
  // refused at once as too large gets that result without a report.
  std::shared_ptr<send_state> enqueue(const std::vector<const dead_letter*>& letters,
                                      const std::vector<size_t>& budgets,
                                      std::vector<size_t>& sizes);
  // Serves reports until every message of `state` has its own; throws after the timeout.
  void await(const send_state& state);
  // Sets unavailable() and tells on_health, as one step: lanes sending at once must not leave
  // the flag and the connector's state disagreeing ("" = the topic took a send).
  void health(const std::string& why);

  std::string _topic;
  dead_letter_producer_options _options;
  std::chrono::milliseconds _delivery_timeout{0};
  std::atomic<size_t> _budget{0};
  std::mutex _health_mutex;               // orders health() calls
  std::atomic<bool> _unavailable{false};  // the last send() failed; written under the mutex
  kafka_handle _producer;
};

}  // namespace sluice
