#include "connector/source/kafka_log.h"

#include <string>

#include "connector/base/log.h"

namespace sluice {
namespace {

// librdkafka levels are syslog's: 0-3 emergency..error, 4 warning, 5-6 notice and info,
// 7 debug.
log_severity severity_of(int level) {
  if (level <= 3) return log_severity::error;
  if (level == 4) return log_severity::warn;
  if (level <= 6) return log_severity::info;
  return log_severity::debug;
}

void log_line(const rd_kafka_t* rk, int level, const char* facility, const char* text) {
  const log_severity severity = severity_of(level);
  if (!log::enabled(severity)) return;
  std::string message = rk ? rd_kafka_name(rk) : "rdkafka";
  message += " ";
  message += facility ? facility : "";
  message += ": ";
  message += text ? text : "";
  log::write(severity, "kafka", message);
}

}  // namespace

void route_kafka_logs(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, &log_line);
}

}  // namespace sluice
