#pragma once

#include <librdkafka/rdkafka.h>

namespace sluice {

// Routes librdkafka's log lines (configuration warnings, broker connection errors, ...)
// through sluice's logger, so that they carry its format (text or JSON, SPEC §6) and level
// filter instead of librdkafka's own "%4|...|FAC|..." lines on stderr. Call before
// rd_kafka_new(). The callback runs on librdkafka's threads; the logger is thread-safe.
void route_kafka_logs(rd_kafka_conf_t* conf);

}  // namespace sluice
