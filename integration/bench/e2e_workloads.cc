#include "integration/bench/e2e_workloads.h"

#include <stdexcept>

namespace sluice::testing {

std::string workload_formats() {
  return "datastream, datastream-avro, debezium, debezium-40, debezium-schemaless";
}

std::unique_ptr<bench_workload> make_workload(const std::string& format, const std::string& table,
                                              size_t events, uint64_t seed, bool stamped,
                                              bool inserts_only) {
  if (format == "datastream" || format == "datastream-avro") {
    return make_datastream_workload(table, events, seed, stamped, format == "datastream-avro",
                                    inserts_only);
  }
  if (inserts_only) throw std::runtime_error("--inserts-only is for the datastream formats");
  if (format == "debezium") return make_debezium_workload(table, seed, stamped, 11, true);
  if (format == "debezium-40") return make_debezium_workload(table, seed, stamped, 40, true);
  if (format == "debezium-schemaless") {
    return make_debezium_workload(table, seed, stamped, 11, false);
  }
  throw std::runtime_error("unknown --format " + format + " (" + workload_formats() + ")");
}

}  // namespace sluice::testing
