#include "integration/support/services.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace sluice::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing " + path + ": are the service fixtures running?");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

struct producer_handle {
  rd_kafka_t* rk = nullptr;
  ~producer_handle() {
    if (rk) rd_kafka_destroy(rk);
  }
};

void delivery_report(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  if (m->err) {
    auto* failures = static_cast<std::atomic<int>*>(opaque);
    ++*failures;
  }
}

rd_kafka_t* new_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  auto set = [&](const char* k, const char* v) {
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
      throw std::runtime_error(std::string(k) + ": " + err);
    }
  };
  set("bootstrap.servers", kafka_bootstrap().c_str());
  if (type == RD_KAFKA_PRODUCER) {
    set("acks", "all");
    set("enable.idempotence", "true");
    set("linger.ms", "5");
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  return rk;
}

}  // namespace

std::string run_dir() {
  const char* d = std::getenv("SLUICE_RUN_DIR");
  if (!d || !*d) throw std::runtime_error("SLUICE_RUN_DIR is not set (run through ctest)");
  return d;
}

std::string registry_url() {
  std::string url = read_file(run_dir() + "/registry.url");
  if (url.empty()) throw std::runtime_error("no registry.url in the run dir (registry.sh start)");
  return url;
}

std::string run_shell(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + command);
  std::string out;
  std::array<char, 4096> buffer{};
  while (const size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    out.append(buffer.data(), n);
  if (::pclose(pipe) != 0) throw std::runtime_error("failed: " + command + "\n" + out);
  return out;
}

std::string kafka_bootstrap() {
  return read_file(run_dir() + "/kafka.bootstrap");
}
std::string postgres_dsn() {
  return read_file(run_dir() + "/postgres.dsn");
}

std::string sluice_binary() {
  const char* b = std::getenv("SLUICE_BINARY");
  if (!b || !*b) throw std::runtime_error("SLUICE_BINARY is not set (run through ctest)");
  return b;
}

std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

void create_topic(const std::string& topic, int partitions,
                  const std::map<std::string, std::string>& configs) {
  producer_handle h;
  h.rk = new_client(RD_KAFKA_PRODUCER, rd_kafka_conf_new());
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err);
  if (!nt) throw std::runtime_error(std::string("NewTopic: ") + err);
  for (const auto& [name, value] : configs) {
    if (rd_kafka_NewTopic_set_config(nt, name.c_str(), value.c_str())) {
      rd_kafka_NewTopic_destroy(nt);
      throw std::runtime_error("NewTopic: bad config " + name);
    }
  }
  rd_kafka_queue_t* q = rd_kafka_queue_new(h.rk);
  rd_kafka_CreateTopics(h.rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::string failure;
  if (!ev) {
    failure = "CreateTopics timed out";
  } else {
    const rd_kafka_CreateTopics_result_t* res = rd_kafka_event_CreateTopics_result(ev);
    size_t n = 0;
    const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(res, &n);
    if (rd_kafka_event_error(ev)) {
      failure = rd_kafka_event_error_string(ev);
    } else if (n == 1 && rd_kafka_topic_result_error(results[0]) &&
               rd_kafka_topic_result_error(results[0]) != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      failure = rd_kafka_topic_result_error_string(results[0]);
    }
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  if (!failure.empty()) throw std::runtime_error("create topic " + topic + ": " + failure);
  // Wait until the partitions have leaders, so the first produce does not race.
  for (int i = 0; i < 100; ++i) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_topic_t* t = rd_kafka_topic_new(h.rk, topic.c_str(), nullptr);
    bool ready = false;
    if (rd_kafka_metadata(h.rk, 0, t, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ready =
          md->topic_cnt == 1 && md->topics[0].err == 0 && md->topics[0].partition_cnt == partitions;
      for (int p = 0; ready && p < md->topics[0].partition_cnt; ++p) {
        ready = md->topics[0].partitions[p].leader >= 0;
      }
      rd_kafka_metadata_destroy(md);
    }
    rd_kafka_topic_destroy(t);
    if (ready) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("topic " + topic + " has no leaders after 10s");
}

void delete_records(const std::string& topic, int partition, int64_t before) {
  producer_handle h;
  h.rk = new_client(RD_KAFKA_PRODUCER, rd_kafka_conf_new());
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, topic.c_str(), partition)->offset = before;
  rd_kafka_DeleteRecords_t* del = rd_kafka_DeleteRecords_new(offsets);
  rd_kafka_topic_partition_list_destroy(offsets);
  rd_kafka_queue_t* q = rd_kafka_queue_new(h.rk);
  rd_kafka_DeleteRecords(h.rk, &del, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::string failure;
  if (!ev) {
    failure = "DeleteRecords timed out";
  } else {
    if (rd_kafka_event_error(ev)) {
      failure = rd_kafka_event_error_string(ev);
    } else {
      const rd_kafka_topic_partition_list_t* done =
          rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev));
      if (done && done->cnt == 1 && done->elems[0].err) {
        failure = rd_kafka_err2str(done->elems[0].err);
      }
    }
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_DeleteRecords_destroy(del);
  if (!failure.empty()) throw std::runtime_error("delete records of " + topic + ": " + failure);
}

void produce(const std::string& topic, const std::vector<kafka_record>& records,
             const std::map<std::string, std::string>& properties) {
  std::atomic<int> failures{0};
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : properties) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(k + ": " + err);
    }
  }
  rd_kafka_conf_set_dr_msg_cb(conf, delivery_report);
  rd_kafka_conf_set_opaque(conf, &failures);
  producer_handle h;
  h.rk = new_client(RD_KAFKA_PRODUCER, conf);
  for (const kafka_record& r : records) {
    void* key = r.key ? const_cast<char*>(r.key->data()) : nullptr;
    const size_t key_len = r.key ? r.key->size() : 0;
    void* payload = r.value ? const_cast<char*>(r.value->data()) : nullptr;
    const size_t payload_len = r.value ? r.value->size() : 0;
    for (;;) {
      const auto err = rd_kafka_producev(
          h.rk, RD_KAFKA_V_TOPIC(topic.c_str()),
          RD_KAFKA_V_PARTITION(r.partition < 0 ? RD_KAFKA_PARTITION_UA : r.partition),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
          RD_KAFKA_V_VALUE(payload, payload_len), RD_KAFKA_V_TIMESTAMP(r.timestamp_ms),
          RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(h.rk, 50);
        continue;
      }
      if (err) throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(err));
      break;
    }
    rd_kafka_poll(h.rk, 0);
  }
  if (rd_kafka_flush(h.rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error("produce: flush timed out");
  }
  if (failures > 0)
    throw std::runtime_error("produce: " + std::to_string(failures.load()) + " failed");
}

std::vector<read_message> read_topic(const std::string& topic, size_t want) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "group.id", unique_name("reader").c_str(), err, sizeof err) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(err);
  }
  producer_handle h;  // a consumer here: destroyed the same way
  h.rk = new_client(RD_KAFKA_CONSUMER, conf);
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(h.rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  std::vector<read_message> out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(h.rk, 200);
    if (!m) continue;
    if (!m->err) {
      read_message r;
      if (m->key) r.key.emplace(static_cast<const char*>(m->key), m->key_len);
      if (m->payload) r.value.emplace(static_cast<const char*>(m->payload), m->len);
      rd_kafka_headers_t* hdrs = nullptr;
      if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name = nullptr;
        const void* value = nullptr;
        size_t size = 0;
        for (size_t i = 0;
             rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
             ++i) {
          r.headers[name] = value ? std::string(static_cast<const char*>(value), size) : "";
        }
      }
      out.push_back(std::move(r));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(h.rk);
  return out;
}

std::vector<row> query(const std::string& sql) {
  pqxx::connection c(postgres_dsn());
  pqxx::nontransaction tx(c);
  pqxx::result r = tx.exec(sql);
  std::vector<row> out;
  out.reserve(r.size());
  for (const auto& record : r) {
    row rw;
    for (const auto& field : record) {
      rw.push_back(field.is_null() ? std::nullopt : std::optional<std::string>(field.c_str()));
    }
    out.push_back(std::move(rw));
  }
  return out;
}

int64_t count_of(const std::string& sql) {
  const auto rows = query(sql);
  return rows.empty() || rows[0].empty() || !rows[0][0] ? 0 : std::stoll(*rows[0][0]);
}

void execute(const std::string& sql) {
  pqxx::connection c(postgres_dsn());
  pqxx::nontransaction tx(c);
  tx.exec(sql);
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace sluice::testing
