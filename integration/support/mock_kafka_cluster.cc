#include "integration/support/mock_kafka_cluster.h"

#include <stdexcept>

namespace sluice::testing {
namespace {

void check(rd_kafka_resp_err_t err, const std::string& what) {
  if (err) throw std::runtime_error("mock cluster: " + what + ": " + rd_kafka_err2str(err));
}

}  // namespace

mock_kafka_cluster::mock_kafka_cluster(int brokers) : _brokers(brokers) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // The host handle never connects anywhere: it only carries the cluster's threads and logs.
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  _host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!_host) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("mock cluster host handle: ") + err);
  }
  _cluster = rd_kafka_mock_cluster_new(_host, brokers);
  if (!_cluster) {
    rd_kafka_destroy(_host);
    throw std::runtime_error("rd_kafka_mock_cluster_new failed");
  }
}

mock_kafka_cluster::~mock_kafka_cluster() {
  rd_kafka_mock_cluster_destroy(_cluster);
  rd_kafka_destroy(_host);
}

std::string mock_kafka_cluster::bootstraps() const {
  return rd_kafka_mock_cluster_bootstraps(_cluster);
}

void mock_kafka_cluster::create_topic(const std::string& topic, int partitions) {
  check(rd_kafka_mock_topic_create(_cluster, topic.c_str(), partitions, _brokers),
        "create topic " + topic);
  for (int32_t p = 0; p < partitions; ++p)
    set_leader(topic, p, p % _brokers + 1);
}

int32_t mock_kafka_cluster::leader_of(const std::string& topic, int32_t partition) const {
  return _leaders.at({topic, partition});
}

void mock_kafka_cluster::set_leader(const std::string& topic, int32_t partition, int32_t broker) {
  check(rd_kafka_mock_partition_set_leader(_cluster, topic.c_str(), partition, broker),
        "set leader of " + topic);
  _leaders[{topic, partition}] = broker;
}

void mock_kafka_cluster::set_coordinator(const std::string& group_id, int32_t broker) {
  check(rd_kafka_mock_coordinator_set(_cluster, "group", group_id.c_str(), broker),
        "set coordinator of " + group_id);
  _coordinators[group_id] = broker;
}

int32_t mock_kafka_cluster::coordinator_of(const std::string& group_id) const {
  return _coordinators.at(group_id);
}

void mock_kafka_cluster::push_errors(kafka_api api,
                                     const std::vector<rd_kafka_resp_err_t>& errors) {
  rd_kafka_mock_push_request_errors_array(_cluster, static_cast<int16_t>(api), errors.size(),
                                          errors.data());
}

void mock_kafka_cluster::push_broker_errors(int32_t broker, kafka_api api,
                                            const std::vector<rd_kafka_resp_err_t>& errors,
                                            int rtt_ms) {
  for (rd_kafka_resp_err_t e : errors) {
    check(rd_kafka_mock_broker_push_request_error_rtts(_cluster, broker, static_cast<int16_t>(api),
                                                       1, e, rtt_ms),
          "push broker error");
  }
}

size_t mock_kafka_cluster::pending_broker_errors(int32_t broker, kafka_api api) const {
  size_t n = 0;
  check(rd_kafka_mock_broker_error_stack_cnt(_cluster, broker, static_cast<int16_t>(api), &n),
        "count broker errors");
  return n;
}

void mock_kafka_cluster::broker_down(int32_t broker) {
  check(rd_kafka_mock_broker_set_down(_cluster, broker), "broker down");
}

void mock_kafka_cluster::broker_up(int32_t broker) {
  check(rd_kafka_mock_broker_set_up(_cluster, broker), "broker up");
}

}  // namespace sluice::testing
