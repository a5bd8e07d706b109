#include "connector/kafka/dead_letter_producer.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "connector/kafka/kafka_log.h"

namespace sluice {
namespace {

// Producer-only librdkafka properties are kept; consumer-only ones are dropped.
bool consumer_only(const std::string& key) {
  static const char* const keys[] = {"group.id",
                                     "auto.offset.reset",
                                     "session.timeout.ms",
                                     "heartbeat.interval.ms",
                                     "max.poll.interval.ms",
                                     "fetch.min.bytes",
                                     "fetch.max.bytes",
                                     "fetch.wait.max.ms",
                                     "max.partition.fetch.bytes",
                                     "queued.min.messages",
                                     "queued.max.messages.kbytes",
                                     "group.instance.id",
                                     "isolation.level",
                                     "check.crcs",
                                     "enable.partition.eof",
                                     "allow.auto.create.topics"};
  for (const char* k : keys) {
    if (key == k) return true;
  }
  return false;
}

struct delivery_state {
  std::atomic<int> pending{0};
  std::atomic<int> failed{0};
  std::string first_error;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  auto* state = static_cast<delivery_state*>(m->_private);
  if (!state) return;
  if (m->err) {
    if (state->failed++ == 0) state->first_error = rd_kafka_err2str(m->err);
  }
  --state->pending;
}

}  // namespace

dead_letter_producer::dead_letter_producer(
    const std::vector<std::pair<std::string, std::string>>& kafka_properties, std::string topic)
    : _topic(std::move(topic)) {
  kafka_conf conf(rd_kafka_conf_new());
  char err[512];
  for (const auto& [k, v] : kafka_properties) {
    if (consumer_only(k)) continue;
    if (rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      throw std::invalid_argument("kafka." + k + ": " + err);
    }
  }
  for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"acks", "all"}, {"enable.idempotence", "true"}, {"linger.ms", "5"}}) {
    rd_kafka_conf_set(conf.get(), k, v, err, sizeof err);
  }
  rd_kafka_conf_set_dr_msg_cb(conf.get(), on_delivery);
  route_kafka_logs(conf.get());
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("cannot create the dead letter producer: ") + err);
  conf.release();
  _producer.reset(rk);
}

void dead_letter_producer::send(const std::vector<dead_letter>& letters) {
  std::vector<const dead_letter*> all;
  all.reserve(letters.size());
  for (const dead_letter& d : letters)
    all.push_back(&d);
  send(all);
}

void dead_letter_producer::send(const std::vector<const dead_letter*>& letters) {
  if (letters.empty()) return;
  delivery_state state;
  for (const dead_letter* letter : letters) {
    const dead_letter& d = *letter;
    rd_kafka_headers_t* headers = rd_kafka_headers_new(8 + d.headers.size());
    for (const auto& [name, value] : d.headers) {
      rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()),
                          value ? value->data() : nullptr,
                          value ? static_cast<ssize_t>(value->size()) : 0);
    }
    const std::string partition = std::to_string(d.origin.partition.value());
    const std::string offset = std::to_string(d.origin.offset.value());
    const std::pair<const char*, const std::string*> ours[] = {{"__sluice.reason", &d.reason},
                                                               {"__sluice.topic", &d.origin.topic},
                                                               {"__sluice.partition", &partition},
                                                               {"__sluice.offset", &offset}};
    for (const auto& [name, value] : ours) {
      rd_kafka_header_add(headers, name, -1, value->data(), static_cast<ssize_t>(value->size()));
    }
    void* key = d.key ? const_cast<char*>(d.key->data()) : nullptr;
    const size_t key_len = d.key ? d.key->size() : 0;
    void* payload = d.value ? const_cast<char*>(d.value->data()) : nullptr;
    const size_t payload_len = d.value ? d.value->size() : 0;
    ++state.pending;
    for (;;) {
      const rd_kafka_resp_err_t e =
          rd_kafka_producev(_producer.get(), RD_KAFKA_V_TOPIC(_topic.c_str()),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
                            RD_KAFKA_V_VALUE(payload, payload_len), RD_KAFKA_V_HEADERS(headers),
                            RD_KAFKA_V_OPAQUE(&state), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(_producer.get(), 50);
        continue;
      }
      if (e) {
        rd_kafka_headers_destroy(headers);
        --state.pending;
        throw std::runtime_error("dead letter queue " + _topic + ": " + rd_kafka_err2str(e));
      }
      break;  // the producer owns the headers now
    }
  }
  // Wait for this call's deliveries (other lanes' calls wait for theirs).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (state.pending.load() > 0) {
    rd_kafka_poll(_producer.get(), 20);
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("dead letter queue " + _topic + ": delivery timed out");
    }
  }
  if (state.failed > 0) {
    throw std::runtime_error("dead letter queue " + _topic + ": " + std::to_string(state.failed) +
                             " message(s) not delivered: " + state.first_error);
  }
}

}  // namespace sluice
