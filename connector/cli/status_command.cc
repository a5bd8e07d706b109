// `sluice status -c FILE`: per partition, the next offset committed in PostgreSQL (the truth
// for sluice), the owner epoch, the high watermark in Kafka and the lag between them; per
// target table, the source timestamp of the newest applied change and when a batch last
// wrote it.

#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/config/redact.h"
#include "connector/kafka/kafka_handles.h"
#include "connector/kafka/kafka_log.h"
#include "connector/runtime/stage_factory.h"
#include "sinks/postgres/state_reader.h"

namespace sluice {
namespace {

// A client for watermark queries only: the consumer-group keys are left out.
kafka_handle watermark_client(const config& c, std::string& error) {
  char err[512];
  kafka_conf conf(rd_kafka_conf_new());
  for (const auto& [k, v] : c.kafka) {
    if (k == "group.id" || k == "auto.offset.reset") continue;
    if (rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      error = "kafka." + k + ": " + err;
      return nullptr;
    }
  }
  route_kafka_logs(conf.get());
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err);
  if (!rk) {
    error = err;
    return nullptr;
  }
  conf.release();
  return kafka_handle(rk);
}

}  // namespace

int status_command(const std::string& config_path) {
  auto c = load_command_config(config_path, "status");
  if (!c) return 2;

  std::vector<stored_offset> offsets;
  std::vector<table_progress> tables;
  try {
    pg_session session(make_session_options(*c), retry_policy::bounded(), "status");
    state_reader reader(session, c->name);
    offsets = reader.read_offsets();
    tables = reader.read_table_progress();
  } catch (const std::exception& e) {
    std::cerr << "sluice status: PostgreSQL unreachable: "
              << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 3;
  }
  std::string error;
  kafka_handle kafka = watermark_client(*c, error);
  if (!kafka) {
    std::cerr << "sluice status: " << redact_secrets(error, c->secrets) << "\n";
    return 2;
  }

  std::cout << "connector " << c->name << "\n";
  std::printf("%-40s %9s %14s %14s %12s %7s\n", "topic", "partition", "committed", "high watermark",
              "lag", "epoch");
  bool kafka_ok = true;
  for (const stored_offset& o : offsets) {
    int64_t low = 0, high = -1;
    const auto err = rd_kafka_query_watermark_offsets(kafka.get(), o.topic.c_str(),
                                                      o.partition.value(), &low, &high, 5000);
    const bool known = err == RD_KAFKA_RESP_ERR_NO_ERROR;
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
