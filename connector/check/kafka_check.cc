#include "connector/check/kafka_check.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "connector/config/config_checks.h"
#include "connector/config/did_you_mean.h"
#include "connector/config/redact.h"
#include "connector/config/topic_regex.h"
#include "connector/source/kafka_consumer.h"
#include "connector/source/kafka_handles.h"
#include "connector/source/kafka_log.h"

namespace sluice {
namespace {

using status = check_report::status;

// librdkafka's error callback: keeps the first TLS or SASL refusal.
void keep_refusal(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* refused = static_cast<std::string*>(opaque);
  if (is_refusal(static_cast<rd_kafka_resp_err_t>(err)) && refused->empty() && reason) {
    *refused = reason;
  }
}

// Sets every property on a scratch configuration: false when one is unknown or invalid
// (each reported as a configuration error).
bool properties_valid(const config& c, check_report& report) {
  const kafka_conf scratch(rd_kafka_conf_new());
  const std::vector<std::string> names = kafka_property_names();
  std::vector<std::string_view> candidates(names.begin(), names.end());
  bool valid = true;
  for (const auto& [k, v] : c.kafka) {
    char err[512];
    const rd_kafka_conf_res_t res =
        rd_kafka_conf_set(scratch.get(), k.c_str(), v.c_str(), err, sizeof err);
    if (res == RD_KAFKA_CONF_OK) continue;
    valid = false;
    std::string detail = redact_secrets(err, c.secrets);
    if (res == RD_KAFKA_CONF_UNKNOWN) {
      detail = "not a librdkafka property";
      if (auto near = closest_match(k, candidates)) {
        detail += "; did you mean kafka." + std::string(*near) + "?";
      }
    }
    report.add("kafka", "kafka." + k, status::config_error, detail);
  }
  return valid;
}

// The topics the brokers know (internal ones aside): name -> partitions.
std::map<std::string, int> topics_of(const rd_kafka_metadata_t& md) {
  std::map<std::string, int> out;
  for (int i = 0; i < md.topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = md.topics[i];
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR || std::string_view(t.topic).starts_with("__")) {
      continue;
    }
    out[t.topic] = t.partition_cnt;
  }
  return out;
}

// The topics there, nearest to `wanted` first (a typo's likely target leads), at most 20.
std::string listing(const std::map<std::string, int>& topics, std::string_view wanted) {
  if (topics.empty()) return "the cluster has no topic";
  std::vector<std::pair<std::size_t, const std::string*>> ranked;
  ranked.reserve(topics.size());
  for (const auto& entry : topics)
    ranked.emplace_back(edit_distance(wanted, entry.first), &entry.first);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "topics here: ";
  for (size_t n = 0; n < ranked.size(); ++n) {
    if (n == 20) {
      out += ", … (" + std::to_string(topics.size()) + " in all)";
      break;
    }
    const std::string& name = *ranked[n].second;
    out += (n ? ", " : "") + name + " (" + std::to_string(topics.at(name)) + ")";
  }
  return out;
}

}  // namespace

void check_kafka(const config& c, check_report& report, std::chrono::milliseconds timeout) {
  if (!properties_valid(c, report)) return;  // nothing to connect with

  char err[512];
  std::string refused;  // before the handle whose callback writes it, destroyed after it
  kafka_conf conf(rd_kafka_conf_new());
  rd_kafka_conf_set_error_cb(conf.get(), &keep_refusal);
  rd_kafka_conf_set_opaque(conf.get(), &refused);
  for (const auto& [k, v] : c.kafka) {
    // Consumer-only keys on this producer handle would only be logged as ignored.
    if (k == "group.id" || k == "auto.offset.reset") continue;
    rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof err);  // checked above
  }
  route_kafka_logs(conf.get());
  kafka_handle rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
  if (!rk) {
    report.add("kafka", "client", status::config_error, redact_secrets(err, c.secrets));
    return;
  }
  conf.release();
  const std::string brokers = c.kafka_property("bootstrap.servers").value_or("");
  const rd_kafka_metadata_t* md = nullptr;
  const auto e = rd_kafka_metadata(rk.get(), 1, nullptr, &md, static_cast<int>(timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // "Broker transport failure" says little: the error callback knows why, if TLS or SASL
    // refused the connection.
    rd_kafka_poll(rk.get(), 0);
    report.add("kafka", "brokers " + brokers, status::unreachable,
               redact_secrets(refused.empty() ? rd_kafka_err2str(e) : refused, c.secrets));
    return;
  }
  const std::map<std::string, int> topics = topics_of(*md);
  report.add("kafka", "brokers " + brokers, status::ok,
             std::to_string(md->broker_cnt) + " broker(s)");
  rd_kafka_metadata_destroy(md);

  if (!c.topics_regex.empty()) {
    std::string matched;
    size_t n = 0;
    try {
      const topic_regex re(c.topics_regex);
      for (const auto& [name, partitions] : topics) {
        if (!re.matches(name)) continue;
        matched += (n++ ? ", " : "") + name + " (" + std::to_string(partitions) + ")";
      }
    } catch (const std::invalid_argument& ex) {
      report.add("topics", "regex " + c.topics_regex, status::config_error, ex.what());
      return;
    }
    report.add("topics", "regex " + c.topics_regex, n ? status::ok : status::warn,
               n ? matched : "no topic matches yet (" + listing(topics, c.topics_regex) + ")");
    return;
  }
  for (const std::string& topic : c.topics) {
    const auto it = topics.find(topic);
    if (it == topics.end()) {
      report.add("topics", topic, status::fail, "does not exist; " + listing(topics, topic));
    } else {
      report.add("topics", topic, status::ok, std::to_string(it->second) + " partition(s)");
    }
  }
}

}  // namespace sluice
