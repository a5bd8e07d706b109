// `sluice status -c FILE`: per partition, the next offset committed in PostgreSQL (the truth
// for sluice), the owner epoch, the high watermark in Kafka and the lag between them; per
// target table, the source timestamp of the newest applied change and when a batch last
// wrote it.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "connector/base/sink_options.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/config/redact.h"
#include "connector/source/group_admin.h"
#include "sinks/target.h"

namespace sluice {

int status_command(const std::string& config_path) {
  auto c = load_command_config(config_path, "status");
  if (!c) return 2;

  std::vector<stored_offset> offsets;
  std::vector<table_progress> tables;
  try {
    const auto session = make_target(*c)->open("status", retry_policy::bounded());
    const auto reader = session->make_reader(c->name);
    offsets = reader->read_offsets();
    tables = reader->read_table_progress();
  } catch (const std::exception& e) {
    std::cerr << "sluice status: PostgreSQL unreachable: "
              << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 3;
  }
  std::optional<group_admin> kafka;
  try {
    kafka.emplace(*c, std::chrono::milliseconds(5000));
  } catch (const std::invalid_argument& e) {
    std::cerr << "sluice status: " << redact_secrets(e.what(), c->secrets) << "\n";
    return 2;
  }

  std::cout << "connector " << c->name << "\n";
  std::printf("%-40s %9s %14s %14s %12s %7s\n", "topic", "partition", "committed", "high watermark",
              "lag", "epoch");
  bool kafka_ok = true;
  for (const stored_offset& o : offsets) {
    int64_t low = 0, high = -1;
    bool known = true;
    try {
      const group_admin::watermarks w = kafka->query_watermarks(o.topic, o.partition.value());
      low = w.low;
      high = w.high;
    } catch (const std::runtime_error&) {
      known = false;
    }
    kafka_ok = kafka_ok && known;
    const std::string committed = o.next ? std::to_string(o.next->value()) : "-";
    const std::string hw = known ? std::to_string(high) : "?";
    const std::string lag = known ? std::to_string(high - (o.next ? o.next->value() : low)) : "?";
    std::printf("%-40s %9d %14s %14s %12s %7lld\n", o.topic.c_str(), o.partition.value(),
                committed.c_str(), hw.c_str(), lag.c_str(),
                static_cast<long long>(o.epoch.value()));
  }
  if (offsets.empty()) std::cout << "(no partition claimed yet)\n";

  std::printf("\n%-48s %-32s %-32s\n", "table", "newest applied source timestamp",
              "last applied at");
  for (const table_progress& t : tables) {
    const std::string name = t.table.schema + "." + t.table.name;
    std::printf("%-48s %-32s %-32s\n", name.c_str(),
                t.newest_source_ts ? t.newest_source_ts->c_str() : "-", t.applied_at.c_str());
  }
  if (tables.empty()) std::cout << "(no table written yet)\n";
  if (!kafka_ok) {
    std::cerr << "sluice status: Kafka did not answer for every partition\n";
    return 3;
  }
  return 0;
}

}  // namespace sluice
