#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice::testing {

// Kafka protocol API keys, for the fault injection below.
enum class kafka_api : int16_t {
  produce = 0,
  fetch = 1,
  offset_commit = 8,
  offset_fetch = 9,
  find_coordinator = 10,
  join_group = 11,
  heartbeat = 12,
  leave_group = 13,
  sync_group = 14,
};

// librdkafka's in-process mock cluster (rdkafka_mock.h) for protocol-level fault tests. Its
// brokers listen on loopback ports and are served by threads of this process: a `sluice run`
// child connects to bootstraps() like to any broker, and the cluster lives exactly as long as
// this object. It supports the classic consumer-group protocol; the assignment strategy is the
// clients' business (the leader assigns), so cooperative-sticky works as with a real broker.
//
// Broker ids are 1..brokers. Threading: any thread (librdkafka locks the cluster).
class mock_kafka_cluster {
 public:
  explicit mock_kafka_cluster(int brokers);
  ~mock_kafka_cluster();
  mock_kafka_cluster(const mock_kafka_cluster&) = delete;
  mock_kafka_cluster& operator=(const mock_kafka_cluster&) = delete;

  std::string bootstraps() const;
  int brokers() const { return _brokers; }

  // A topic whose partition p is led by broker p % brokers + 1 (replicated on all brokers).
  void create_topic(const std::string& topic, int partitions);
  int32_t leader_of(const std::string& topic, int32_t partition) const;
  void set_leader(const std::string& topic, int32_t partition, int32_t broker);
  // Moves the group coordinator of group_id: the old one answers NOT_COORDINATOR from then on.
  void set_coordinator(const std::string& group_id, int32_t broker);
  int32_t coordinator_of(const std::string& group_id) const;

  // The next requests of `api` to any broker answer these errors, one request each.
  void push_errors(kafka_api api, const std::vector<rd_kafka_resp_err_t>& errors);
  // The same for one broker, each answer delayed by rtt_ms (which holds back the answers
  // behind it on that connection); what is left of them can be counted.
  void push_broker_errors(int32_t broker, kafka_api api,
                          const std::vector<rd_kafka_resp_err_t>& errors, int rtt_ms = 0);
  size_t pending_broker_errors(int32_t broker, kafka_api api) const;

  // Closes the broker's connections and refuses new ones; leaders stay where they are.
  void broker_down(int32_t broker);
  void broker_up(int32_t broker);

 private:
  rd_kafka_t* _host = nullptr;  // the handle the cluster runs on; destroyed after it
  rd_kafka_mock_cluster_t* _cluster = nullptr;
  int _brokers;
  std::map<std::pair<std::string, int32_t>, int32_t> _leaders;
  std::map<std::string, int32_t> _coordinators;
};

}  // namespace sluice::testing
