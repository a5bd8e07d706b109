#include "connector/source/kafka_consumer.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "connector/base/log.h"
#include "connector/source/kafka_log.h"

namespace sluice {
namespace {

// Keys sluice owns: set here whatever the configuration says (it rejects them earlier).
const std::pair<const char*, const char*> owned_properties[] = {
    {"enable.auto.commit", "false"},
    {"enable.auto.offset.store", "false"},
    {"partition.assignment.strategy", "cooperative-sticky"},
    {"enable.partition.eof", "false"},
};

void set_property(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    throw std::invalid_argument("kafka." + key + ": " + err);
  }
}

std::vector<topic_partition> to_vector(const rd_kafka_topic_partition_list_t* parts) {
  std::vector<topic_partition> out;
  out.reserve(static_cast<size_t>(parts->cnt));
  for (int i = 0; i < parts->cnt; ++i) {
    out.push_back({parts->elems[i].topic, partition_id{parts->elems[i].partition}});
  }
  return out;
}

[[noreturn]] void throw_refused(const std::string& what) {
  throw std::runtime_error(
      "Kafka refused the connection (fix the kafka: TLS or SASL settings, then restart): " + what);
}

kafka_partition_list to_list(const std::vector<topic_partition>& parts) {
  kafka_partition_list list(rd_kafka_topic_partition_list_new(static_cast<int>(parts.size())));
  for (const auto& tp : parts) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value());
  }
  return list;
}

}  // namespace

bool is_refusal(rd_kafka_resp_err_t err) {
  // A disconnect during the TLS handshake is __TRANSPORT in librdkafka: an outage.
  return err == RD_KAFKA_RESP_ERR__SSL || err == RD_KAFKA_RESP_ERR__AUTHENTICATION;
}

kafka_consumer::kafka_consumer(const kafka_settings& settings, assignment_listener& listener)
    : _listener(listener) {
  kafka_conf conf(rd_kafka_conf_new());
  for (const auto& [key, value] : settings.properties)
    set_property(conf.get(), key, value);
  for (const auto& [key, value] : owned_properties)
    set_property(conf.get(), key, value);
  // A stored offset the log no longer holds must not be skipped silently: librdkafka's reset
  // goes off, poll() reports it (take_out_of_range) and the pipeline applies
  // offsets.out.of.range. The configured auto.offset.reset still says where a partition with
  // no stored offset starts: the pipeline seeks there itself (pipeline::start_offset).
  set_property(conf.get(), "auto.offset.reset", "error");
  rd_kafka_conf_set_rebalance_cb(conf.get(), &kafka_consumer::rebalance_trampoline);
  rd_kafka_conf_set_error_cb(conf.get(), &kafka_consumer::error_trampoline);
  route_kafka_logs(conf.get());
  rd_kafka_conf_set_opaque(conf.get(), this);

  char err[512];
  // rd_kafka_new takes ownership of conf only on success.
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("cannot create Kafka consumer: ") + err);
  conf.release();
  _handle.reset(rk);
  rd_kafka_poll_set_consumer(rk);

  std::vector<topic_partition> subs;
  if (!settings.topics_regex.empty()) {
    std::string pattern = settings.topics_regex;
    if (pattern.front() != '^') pattern.insert(pattern.begin(), '^');
    subs.push_back({pattern, partition_id{RD_KAFKA_PARTITION_UA}});
  }
  for (const auto& t : settings.topics)
    subs.push_back({t, partition_id{RD_KAFKA_PARTITION_UA}});
  kafka_partition_list list = to_list(subs);
  if (auto e = rd_kafka_subscribe(rk, list.get())) {
    throw std::runtime_error(std::string("cannot subscribe: ") + rd_kafka_err2str(e));
  }
}

kafka_consumer::~kafka_consumer() {
  try {
    close();
  } catch (...) {
  }
}

void kafka_consumer::rebalance_trampoline(rd_kafka_t*, rd_kafka_resp_err_t err,
                                          rd_kafka_topic_partition_list_t* parts, void* opaque) {
  auto* self = static_cast<kafka_consumer*>(opaque);
  try {
    self->on_rebalance(err, parts);
  } catch (...) {
    // Never let an exception cross librdkafka's C frames: poll() rethrows it.
    self->_listener_error = std::current_exception();
  }
}

void kafka_consumer::error_trampoline(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<kafka_consumer*>(opaque);
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  const std::string what = reason ? reason : rd_kafka_err2str(code);
  // What librdkafka logs itself when no error callback is set, in the same words.
  SLUICE_LOG(error, "kafka", rd_kafka_name(rk) << " ERROR: " << what);
  if (is_refusal(code) && self->_refused.empty()) self->_refused = what;
  // librdkafka 2.0 reports losing every broker here only, never as a polled message (the
  // callback runs on the polling thread: rd_kafka_poll_set_consumer).
  if (code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    if (!self->_brokers_down) SLUICE_LOG(warn, "consumer", "Kafka unreachable: " << what);
    self->_brokers_down = true;
  }
}

void kafka_consumer::on_rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
  rd_kafka_t* rk = _handle.get();
  const bool cooperative = std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
  _synced = true;
  if (_closing) {  // take or drop what librdkafka says, for rd_kafka_consumer_close to revoke
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      if (!cooperative)
        rd_kafka_assign(rk, parts);
      else if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, parts))
        rd_kafka_error_destroy(e);
    } else if (!cooperative) {
      rd_kafka_assign(rk, nullptr);
    } else if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) {
      rd_kafka_error_destroy(e);
    }
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    const std::vector<topic_partition> tps = to_vector(parts);
    // librdkafka keeps an application pause across unassign and assign: a partition paused
    // before its assignment was lost (fenced by the pipeline) would never be fetched again
    // once assigned back. Assigned partitions start resumed; the listener may pause them.
    rd_kafka_resume_partitions(rk, parts);
    const std::vector<int64_t> starts = _listener.on_assigned(tps);
    kafka_partition_list held(rd_kafka_topic_partition_list_new(1));
    bool ask = true;  // the brokers answer: after one that does not, ask no more this time
    for (int i = 0; i < parts->cnt; ++i) {
      rd_kafka_topic_partition_t& p = parts->elems[i];
      p.offset = starts.at(static_cast<size_t>(i));
      if (p.offset != assignment_listener::held) continue;
      // An absolute offset, so that librdkafka queries nothing whose answer could land after
      // the listener's seek: the log start (cached from the last fetch, else asked with a
      // bounded wait; 0 when the broker does not say).
      int64_t low = -1, high = -1;
      if (rd_kafka_get_watermark_offsets(rk, p.topic, p.partition, &low, &high) != 0 || low < 0) {
        if (!ask ||
            rd_kafka_query_watermark_offsets(rk, p.topic, p.partition, &low, &high, 2000) != 0) {
          low = 0;
          ask = false;
        }
      }
      p.offset = std::max<int64_t>(0, low);
      rd_kafka_topic_partition_list_add(held.get(), p.topic, p.partition);
    }
    // Paused before the assignment too, where librdkafka already knows the partition.
    if (held->cnt > 0) rd_kafka_pause_partitions(rk, held.get());
    rd_kafka_error_t* e = nullptr;
    if (cooperative) {
      e = rd_kafka_incremental_assign(rk, parts);
    } else if (auto code = rd_kafka_assign(rk, parts)) {
      throw std::runtime_error(std::string("assign failed: ") + rd_kafka_err2str(code));
    }
    if (e) {
      std::string msg = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      throw std::runtime_error("incremental assign failed: " + msg);
    }
    if (held->cnt > 0) rd_kafka_pause_partitions(rk, held.get());
    SLUICE_LOG(info, "consumer", "assigned " << parts->cnt << " partition(s)");
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    const bool lost = rd_kafka_assignment_lost(rk);
    _listener.on_revoked(to_vector(parts), lost);
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk, nullptr);
    }
    SLUICE_LOG(info, "consumer", (lost ? "lost " : "revoked ") << parts->cnt << " partition(s)");
    return;
  }
  SLUICE_LOG(error, "consumer", "rebalance error: " << rd_kafka_err2str(err));
  if (cooperative) {
    if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) rd_kafka_error_destroy(e);
  } else {
    rd_kafka_assign(rk, nullptr);
  }
}

size_t kafka_consumer::poll(std::vector<kafka_message>& out, size_t max, size_t max_bytes,
                            std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  size_t got = 0, bytes = 0;
  while (got < max && bytes < max_bytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Once something arrived, only drain what is already buffered.
    const int timeout = got > 0 ? 0 : static_cast<int>(std::max<int64_t>(0, left.count()));
    kafka_message m(rd_kafka_consumer_poll(_handle.get(), timeout));
    if (_listener_error) {
      auto e = _listener_error;
      _listener_error = nullptr;
      std::rethrow_exception(e);
    }
    if (!_refused.empty()) throw_refused(_refused);
    if (!m) {
      if (got > 0 || left.count() <= 0) break;
      continue;
    }
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      const std::string what = rd_kafka_message_errstr(m.get());
      if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET && m->rkt) {
        _out_of_range.push_back(
            {{rd_kafka_topic_name(m->rkt), partition_id{m->partition}}, m->offset, what});
        continue;
      }
      if (m->err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
        if (!_brokers_down) SLUICE_LOG(warn, "consumer", "Kafka unreachable: " << what);
        _brokers_down = true;
        continue;
      }
      if (m->err == RD_KAFKA_RESP_ERR__FATAL)
        throw std::runtime_error("Kafka fatal error: " + what);
      if (is_refusal(m->err)) throw_refused(what);
      if (m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
          m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
        SLUICE_LOG(warn, "consumer", what);
      } else {
        SLUICE_LOG(debug, "consumer", what);
      }
      continue;
    }
    bytes += m->len + m->key_len;
    out.push_back(std::move(m));
    ++got;
    _brokers_down = false;
  }
  return got;
}

void kafka_consumer::probe_brokers(std::chrono::milliseconds wait) {
  if (!_brokers_down) return;
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(_handle.get(), 0, nullptr, &md, static_cast<int>(wait.count())) ==
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_metadata_destroy(md);
    _brokers_down = false;
    SLUICE_LOG(info, "consumer", "Kafka reachable again");
  }
}

void kafka_consumer::commit_async(const std::vector<partition_progress>& progress) {
  if (progress.empty() || _closed) return;
  kafka_partition_list list(rd_kafka_topic_partition_list_new(static_cast<int>(progress.size())));
  for (const auto& p : progress) {
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition.value())->offset =
        p.next.value();
  }
  if (auto e = rd_kafka_commit(_handle.get(), list.get(), /*async=*/1)) {
    SLUICE_LOG(debug, "consumer", "async offset commit to Kafka failed: " << rd_kafka_err2str(e));
  }
}

void kafka_consumer::pause(const std::vector<topic_partition>& parts) {
  kafka_partition_list list = to_list(parts);
  rd_kafka_pause_partitions(_handle.get(), list.get());
}

void kafka_consumer::resume(const std::vector<topic_partition>& parts) {
  kafka_partition_list list = to_list(parts);
  rd_kafka_resume_partitions(_handle.get(), list.get());
}

void kafka_consumer::pause_all() {
  rd_kafka_topic_partition_list_t* list = nullptr;
  if (rd_kafka_assignment(_handle.get(), &list) == RD_KAFKA_RESP_ERR_NO_ERROR && list) {
    rd_kafka_pause_partitions(_handle.get(), list);
    rd_kafka_topic_partition_list_destroy(list);
  }
}

void kafka_consumer::resume_all() {
  rd_kafka_topic_partition_list_t* list = nullptr;
  if (rd_kafka_assignment(_handle.get(), &list) == RD_KAFKA_RESP_ERR_NO_ERROR && list) {
    rd_kafka_resume_partitions(_handle.get(), list);
    rd_kafka_topic_partition_list_destroy(list);
  }
}

void kafka_consumer::seek(rd_kafka_topic_partition_list_t* parts) {
  if (!parts || parts->cnt == 0) return;
  if (rd_kafka_error_t* e = rd_kafka_seek_partitions(_handle.get(), parts, 10000)) {
    const std::string what = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    throw std::runtime_error("seek failed: " + what);
  }
  for (int i = 0; i < parts->cnt; ++i) {
    if (parts->elems[i].err) {
      throw std::runtime_error(std::string("seek ") + parts->elems[i].topic +
                               " failed: " + rd_kafka_err2str(parts->elems[i].err));
    }
  }
}

int64_t kafka_consumer::high_watermark(const topic_partition& tp) {
  int64_t low = 0, high = -1;
  rd_kafka_get_watermark_offsets(_handle.get(), tp.topic.c_str(), tp.partition.value(), &low,
                                 &high);
  return high;
}

std::optional<std::pair<int64_t, int64_t>> kafka_consumer::query_watermarks(
    const topic_partition& tp, std::chrono::milliseconds wait) {
  int64_t low = -1, high = -1;
  if (rd_kafka_query_watermark_offsets(_handle.get(), tp.topic.c_str(), tp.partition.value(), &low,
                                       &high, static_cast<int>(wait.count())) !=
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    return std::nullopt;
  }
  return std::pair{low, high};
}

void kafka_consumer::restart_at(const topic_partition& tp, int64_t offset) {
  kafka_partition_list list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition.value())->offset =
      offset;
  for (auto step : {&rd_kafka_incremental_unassign, &rd_kafka_incremental_assign}) {
    if (rd_kafka_error_t* e = step(_handle.get(), list.get())) {
      const std::string what = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      throw std::runtime_error("restarting " + tp.topic + "[" +
                               std::to_string(tp.partition.value()) + "] failed: " + what);
    }
  }
}

std::vector<kafka_consumer::out_of_range> kafka_consumer::take_out_of_range() {
  return std::exchange(_out_of_range, {});
}

bool kafka_consumer::joined() const {
  char* id = rd_kafka_memberid(_handle.get());
  const bool has = id && *id;
  if (id) rd_kafka_mem_free(_handle.get(), id);
  return has;
}

void kafka_consumer::close() {
  if (_closed || !_handle) return;
  _closed = true;
  if (!_synced && joined()) {
    // The SyncGroup answer is on its way: a member is destroyed safely once it has arrived.
    // Ten seconds bound a leader that never answers; nothing is fetched before it does.
    _closing = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!_synced && std::chrono::steady_clock::now() < deadline) {
      if (rd_kafka_message_t* m = rd_kafka_consumer_poll(_handle.get(), 100)) {
        rd_kafka_message_destroy(m);
      }
    }
    if (!_synced) SLUICE_LOG(warn, "consumer", "closing before the group's first assignment");
  }
  rd_kafka_consumer_close(_handle.get());
}

}  // namespace sluice
