#pragma once

#include <string>
#include <utility>
#include <vector>

#include "connector/config/import/connect_config.h"

namespace sluice {

// `sluice config import` (SPEC §6a): a Debezium JDBC sink 3.x or Confluent JDBC sink
// connector's configuration as sluice YAML. Every key written says which of the connector's
// keys it came from; a key the connector leaves unset maps to that peer's default, written
// out (never sluice's); what sluice cannot do is listed, never dropped silently; secrets
// become placeholders whose variables are named.
struct import_result {
  std::string yaml;   // empty when the input was refused
  std::string error;  // why refused (an unknown connector class, no connection.url)
  std::string peer;   // "Debezium JDBC sink" | "Confluent JDBC sink"
  struct unmapped {
    std::string key;  // the connector's key (and its value where it matters)
    std::string why;
  };
  std::vector<unmapped> left_out;
  // Environment variables the YAML (or libpq) reads, each with where its value is.
  std::vector<std::pair<std::string, std::string>> variables;
};

import_result import_connector(const connect_config& c, const std::string& source_name);

}  // namespace sluice
