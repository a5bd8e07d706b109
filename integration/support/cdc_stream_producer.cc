#include "integration/support/cdc_stream_producer.h"

#include <stdexcept>
#include <utility>

#include "integration/support/datastream_events.h"

namespace sluice::testing {
namespace {

constexpr int64_t accounts = 120;  // keys updated over and over (and sometimes deleted)

}  // namespace

std::string table_of(const std::string& base, int32_t partition) {
  return base + "_p" + std::to_string(partition);
}

stream_producer::stream_producer(const std::string& bootstraps, std::string topic, int partitions,
                                 std::string accounts_table, std::string ledger_table)
    : _topic(std::move(topic)),
      _partitions(partitions),
      _accounts_table(std::move(accounts_table)),
      _ledger_table(std::move(ledger_table)) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstraps},
                                                        {"acks", "all"},
                                                        {"enable.idempotence", "true"},
                                                        {"linger.ms", "5"},
                                                        {"message.timeout.ms", "120000"},
                                                        {"log_level", "2"}}) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(k + ": " + err);
    }
  }
  rd_kafka_conf_set_dr_msg_cb(conf, &stream_producer::delivered);
  rd_kafka_conf_set_opaque(conf, this);
  _rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!_rk) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("producer: ") + err);
  }
}

stream_producer::~stream_producer() {
  finish(0);
  rd_kafka_destroy(_rk);
}

void stream_producer::start(int per_wave, std::chrono::milliseconds pause) {
  _thread = std::thread([=, this] {
    while (_waves_left-- > 0) {
      while (_paused && _waves_left > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      for (int i = 0; i < per_wave; ++i)
        produce_next();
      rd_kafka_poll(_rk, 0);
      std::this_thread::sleep_for(pause);
    }
    rd_kafka_flush(_rk, 120000);
  });
}

void stream_producer::finish(int more) {
  _paused = false;
  _waves_left = more;
  if (_thread.joinable()) _thread.join();
}

std::map<int32_t, int64_t> stream_producer::delivered_per_partition() const {
  std::map<int32_t, int64_t> out;
  for (int32_t p = 0; p < _partitions; ++p)
    out[p] = 0;
  std::lock_guard lock(_mutex);
  for (const auto& [p, n] : _delivered)
    out[p] = n;
  return out;
}

std::map<int32_t, int64_t> stream_producer::high_watermarks() const {
  std::map<int32_t, int64_t> out;
  for (int32_t p = 0; p < _partitions; ++p) {
    int64_t low = -1, high = -1;
    if (auto e = rd_kafka_query_watermark_offsets(_rk, _topic.c_str(), p, &low, &high, 10000)) {
      throw std::runtime_error(std::string("watermarks: ") + rd_kafka_err2str(e));
    }
    out[p] = high;
  }
  return out;
}

void stream_producer::delivered(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<stream_producer*>(opaque);
  if (m->err) {
    ++self->_failures;
    return;
  }
  std::lock_guard lock(self->_mutex);
  ++self->_delivered[m->partition];
}

void stream_producer::produce_next() {
  const int64_t n = ++_sequence;
  datastream_event e;
  e.lsn = 100000 + static_cast<uint64_t>(n);
  std::string key;
  int32_t partition = 0;
  if (n % 3 == 0) {
    partition = static_cast<int32_t>(n / 3 % _partitions);
    e.table = table_of(_ledger_table, partition);
    e.payload_json = "\"id\":" + std::to_string(n) + ",\"amount\":" + std::to_string(n * 7);
    _expected.ledger.push_back(n);
    key = "l" + std::to_string(n);
  } else {
    const int64_t id = (n * 7) % accounts + 1;
    auto it = _expected.accounts.find(id);
    if (it == _expected.accounts.end()) {
      e.change_type = "INSERT";
      _expected.accounts[id] = n;
    } else if (n % 17 == 1) {
      e.change_type = "DELETE";
      _expected.accounts.erase(it);
    } else {
      e.change_type = "UPDATE";
      it->second = n;
    }
    // Spread the keys over the partitions (a plain id % partitions would leave some empty).
    partition = static_cast<int32_t>((static_cast<uint64_t>(id) * 2654435761u >> 8) %
                                     static_cast<uint64_t>(_partitions));
    e.table = table_of(_accounts_table, partition);
    e.payload_json = "\"id\":" + std::to_string(id) + ",\"version\":" + std::to_string(n) +
                     ",\"note\":\"v" + std::to_string(n) + "\"";
    key = "a" + std::to_string(id);
  }
  const std::string value = e.json();
  for (;;) {
    const auto err = rd_kafka_producev(
        _rk, RD_KAFKA_V_TOPIC(_topic.c_str()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key.data(), key.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(_rk, 50);
      continue;
    }
    if (err) throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(err));
    break;
  }
  ++_produced;
}

}  // namespace sluice::testing
