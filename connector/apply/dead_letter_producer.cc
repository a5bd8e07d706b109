#include "connector/apply/dead_letter_producer.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "connector/apply/dead_letter_record.h"
#include "connector/apply/topic_message_limit.h"
#include "connector/base/log.h"
#include "connector/source/kafka_log.h"

namespace sluice {

// One send() call's delivery reports. Shared by the call and by each of its queued messages
// (a heap `delivery` as the message's opaque), so a report lands in live memory whenever it
// comes: after send() timed out or threw, or served by another lane's poll.
struct dead_letter_producer::send_state {
  explicit send_state(size_t messages) : results(messages, RD_KAFKA_RESP_ERR__IN_PROGRESS) {}
  std::atomic<size_t> pending{0};
  // One per message, written by its report (or by enqueue) before `pending` drops.
  std::vector<rd_kafka_resp_err_t> results;
};

namespace {

using send_state = dead_letter_producer::send_state;

// A queued message's opaque: freed by its delivery report.
struct delivery {
  std::shared_ptr<send_state> state;
  size_t index;
};

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

// A v2 record batch's own framing (its header, before the first record).
constexpr size_t batch_framing = 61;
// How long send() waits past message.timeout.ms, by which librdkafka reports every message.
constexpr std::chrono::milliseconds report_margin{15'000};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  std::unique_ptr<delivery> d(static_cast<delivery*>(m->_private));
  if (!d) return;
  d->state->results[d->index] = m->err;
  d->state->pending.fetch_sub(1, std::memory_order_acq_rel);
}

bool too_large(rd_kafka_resp_err_t e) {
  return e == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || e == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE;
}

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    throw std::invalid_argument("kafka." + key + ": " + err);
  }
}

int64_t get_number(const rd_kafka_conf_t* conf, const char* key) {
  char value[64];
  size_t size = sizeof value;
  int64_t n = 0;
  if (rd_kafka_conf_get(conf, key, value, &size) != RD_KAFKA_CONF_OK) return 0;
  std::from_chars(value, value + std::strlen(value), n);
  return n;
}

// The topic's max.message.bytes, asked on a short-lived client with the producer's
// settings: the producer's batch.size must be bounded by it before the producer exists.
std::optional<int64_t> ask_topic_limit(const rd_kafka_conf_t* conf, const std::string& topic,
                                       std::chrono::milliseconds wait) {
  char err[512];
  kafka_conf copy(rd_kafka_conf_dup(conf));
  set(copy.get(), "enable.idempotence", "false");  // it produces nothing
  kafka_handle client(rd_kafka_new(RD_KAFKA_PRODUCER, copy.get(), err, sizeof err));
  if (!client) {
    SLUICE_LOG(warn, "dlq", "cannot ask the limits of " << topic << ": " << err);
    return std::nullopt;
  }
  copy.release();
  std::string why;
  std::optional<int64_t> limit = topic_max_message_bytes(client.get(), topic, wait, why);
  if (!limit) SLUICE_LOG(warn, "dlq", "max.message.bytes of " << topic << " unknown: " << why);
  return limit;
}

}  // namespace

dead_letter_producer::dead_letter_producer(
    const std::vector<std::pair<std::string, std::string>>& kafka_properties, std::string topic,
    dead_letter_producer_options options)
    : _topic(std::move(topic)), _options(std::move(options)) {
  kafka_conf conf(rd_kafka_conf_new());
  bool timeout_set = false;
  for (const auto& [k, v] : kafka_properties) {
    if (consumer_only(k)) continue;
    set(conf.get(), k, v);
    timeout_set = timeout_set || k == "message.timeout.ms" || k == "delivery.timeout.ms";
  }
  for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"acks", "all"}, {"enable.idempotence", "true"}, {"linger.ms", "5"}}) {
    set(conf.get(), k, v);
  }
  // A batch waits for its dead letters: a minute, unless configured, rather than five.
  if (!timeout_set) set(conf.get(), "message.timeout.ms", "60000");
  route_kafka_logs(conf.get());

  int64_t limit = get_number(conf.get(), "message.max.bytes");
  if (auto topic_limit = ask_topic_limit(conf.get(), _topic, _options.describe_timeout)) {
    limit = std::min(limit, *topic_limit);
  }
  // Several letters in one record batch must fit too.
  if (get_number(conf.get(), "batch.size") > limit) {
    set(conf.get(), "batch.size", std::to_string(limit));
  }
  _budget = static_cast<size_t>(std::max<int64_t>(limit - static_cast<int64_t>(batch_framing), 0));
  SLUICE_LOG(info, "dlq", "dead letters to " << _topic << ": records up to " << limit << " bytes");
  int64_t message_timeout = get_number(conf.get(), "message.timeout.ms");
  if (message_timeout <= 0) message_timeout = 300'000;  // librdkafka's default
  _delivery_timeout = _options.delivery_timeout.count() > 0
                          ? _options.delivery_timeout
                          : std::chrono::milliseconds(message_timeout) + report_margin;

  rd_kafka_conf_set_dr_msg_cb(conf.get(), on_delivery);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("cannot create the dead letter producer: ") + err);
  conf.release();
  _producer.reset(rk);
}

dead_letter_producer::~dead_letter_producer() {
  // What is still queued belongs to send() calls that gave up (their batches did not
  // commit): purged, and its reports served here, which frees their delivery state. A
  // report still missing after the flush leaves its state leaked, never freed under it.
  rd_kafka_purge(_producer.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_flush(_producer.get(), 10'000);
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
  try {
    deliver(letters);
  } catch (const dead_letter_queue_error& e) {
    health(e.what());
    throw;
  }
  if (_unavailable.load()) health("");
}

void dead_letter_producer::health(const std::string& why) {
  std::lock_guard lock(_health_mutex);
  const bool down = !why.empty();
  const bool was = _unavailable.exchange(down);
  if ((down || was) && _options.on_health) _options.on_health(why);
}

void dead_letter_producer::deliver(const std::vector<const dead_letter*>& letters) {
  std::vector<size_t> sizes;
  std::shared_ptr<send_state> state =
      enqueue(letters, std::vector<size_t>(letters.size(), _budget.load()), sizes);
  await(*state);

  std::vector<const dead_letter*> again;
  std::vector<size_t> smaller;
  size_t failed = 0;
  std::string first_error;
  for (size_t i = 0; i < letters.size(); ++i) {
    const rd_kafka_resp_err_t e = state->results[i];
    if (!e) continue;
    if (too_large(e)) {
      // The topic takes less than this record: remembered for later letters; this one is
      // sent once more, cut to half its size.
      size_t budget = _budget.load();
      while (sizes[i] <= budget && !_budget.compare_exchange_weak(budget, sizes[i] - 1)) {
      }
      again.push_back(letters[i]);
      smaller.push_back(std::min(sizes[i] / 2, _budget.load()));
    } else if (failed++ == 0) {
      first_error = rd_kafka_err2str(e);
    }
  }
  if (failed == 0 && !again.empty()) {
    SLUICE_LOG(warn, "dlq",
               again.size() << " dead letter(s) refused by " << _topic
                            << " as too large: sent again, cut smaller");
    state = enqueue(again, smaller, sizes);
    await(*state);
    for (size_t i = 0; i < again.size(); ++i) {
      if (state->results[i] && failed++ == 0) first_error = rd_kafka_err2str(state->results[i]);
    }
  }
  if (failed > 0) {
    throw dead_letter_queue_error("dead letter queue " + _topic + ": " + std::to_string(failed) +
                                  " message(s) not delivered: " + first_error);
  }
}

std::shared_ptr<send_state> dead_letter_producer::enqueue(
    const std::vector<const dead_letter*>& letters, const std::vector<size_t>& budgets,
    std::vector<size_t>& sizes) {
  auto state = std::make_shared<send_state>(letters.size());
  sizes.assign(letters.size(), 0);
  for (size_t i = 0; i < letters.size(); ++i) {
    const dead_letter_record record =
        make_dead_letter_record(*letters[i], _options.connector, budgets[i]);
    sizes[i] = record.size();
    kafka_headers headers(rd_kafka_headers_new(record.headers.size()));
    for (const auto& [name, value] : record.headers) {
      rd_kafka_header_add(headers.get(), name.data(), static_cast<ssize_t>(name.size()),
                          value ? value->data() : nullptr,
                          value ? static_cast<ssize_t>(value->size()) : 0);
    }
    void* key = record.key ? const_cast<char*>(record.key->data()) : nullptr;
    const size_t key_len = record.key ? record.key->size() : 0;
    void* payload = record.value ? const_cast<char*>(record.value->data()) : nullptr;
    const size_t payload_len = record.value ? record.value->size() : 0;
    auto opaque = std::make_unique<delivery>(delivery{state, i});
    state->pending.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      const rd_kafka_resp_err_t e = rd_kafka_producev(
          _producer.get(), RD_KAFKA_V_TOPIC(_topic.c_str()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
          RD_KAFKA_V_VALUE(payload, payload_len), RD_KAFKA_V_HEADERS(headers.get()),
          RD_KAFKA_V_OPAQUE(opaque.get()), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(_producer.get(), 50);
        continue;
      }
      if (!e) {
        // librdkafka owns the headers now, and the opaque until its report.
        headers.release();
        opaque.release();
        break;
      }
      // Not queued: no report will come; the headers and the opaque are still ours.
      state->results[i] = e;
      state->pending.fetch_sub(1, std::memory_order_relaxed);
      if (too_large(e)) break;
      throw dead_letter_queue_error("dead letter queue " + _topic + ": " + rd_kafka_err2str(e));
    }
  }
  return state;
}

void dead_letter_producer::await(const send_state& state) {
  // Other lanes' calls wait for theirs; any poll may serve anyone's report.
  const auto deadline = std::chrono::steady_clock::now() + _delivery_timeout;
  while (state.pending.load(std::memory_order_acquire) > 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw dead_letter_queue_error(
          "dead letter queue " + _topic + ": " + std::to_string(state.pending.load()) +
          " delivery report(s) missing after " + std::to_string(_delivery_timeout.count()) + " ms");
    }
    rd_kafka_poll(_producer.get(), 20);
  }
}

}  // namespace sluice
