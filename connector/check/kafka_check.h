#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "connector/check/check_report.h"
#include "connector/config/config.h"

namespace sluice {

// `sluice check` on the Kafka side, read-only and bounded by `timeout`:
//   every kafka: property is set on a scratch librdkafka configuration first, so that an
//     unknown name (with a did-you-mean among librdkafka's own names) or a bad value is a
//     configuration error found locally, never reported as an unreachable broker;
//   one metadata request for every topic (unreachable: the TLS or SASL refusal if the
//     error callback saw one, else librdkafka's error);
//   each configured topic must exist (its partitions are listed); a missing one fails and
//     the detail lists the topics that do exist; a topics.regex lists what it matches.
void check_kafka(const config& c, check_report& report, std::chrono::milliseconds timeout);

}  // namespace sluice
