// `sluice status -c FILE`: per partition, the next offset committed in the target (PostgreSQL
// or MariaDB: the truth for sluice), the owner epoch, the high watermark in Kafka and the lag
// between them; per target table, the source timestamp of the newest applied change and when
// a batch last wrote it. `--json`: the same as one JSON object. Exit 3 when the target or
// Kafka does not answer (the rows the target holds are printed all the same when only Kafka
// is away); the message names the target ("sluice status: MariaDB unreachable: …").

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "connector/base/sink_options.h"
#include "connector/base/target_names.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/config/redact.h"
#include "connector/source/group_admin.h"
#include "core/model/json_text.h"
#include "sinks/target.h"

namespace sluice {
namespace {

struct partition_row {
  const stored_offset* stored = nullptr;
  std::optional<int64_t> high, lag;  // nullopt: Kafka did not answer for it
};

// Whether the brokers answer at all (asked when no partition's watermark asked them): the
// metadata of the configured topics, or of those topics.regex matches.
bool kafka_answers(group_admin& kafka, const config& c) {
  try {
    if (c.topics_regex.empty()) {
      kafka.partitions(c.topics);
    } else {
      kafka.topics_matching(c.topics_regex);
    }
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

std::string json_text(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

std::string json_number(const std::optional<int64_t>& n) {
  return n ? std::to_string(*n) : "null";
}

void print_json(const config& c, const std::vector<partition_row>& rows,
                const std::vector<table_progress>& tables, bool kafka_ok) {
  std::string out = "{\"connector\":" + json_text(c.name) +
                    ",\"kafka_reachable\":" + (kafka_ok ? "true" : "false") + ",\"partitions\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const stored_offset& o = *rows[i].stored;
    out += (i ? ",{" : "{");
    out += "\"topic\":" + json_text(o.topic) +
           ",\"partition\":" + std::to_string(o.partition.value()) + ",\"committed\":" +
           json_number(o.next ? std::optional<int64_t>(o.next->value()) : std::nullopt) +
           ",\"high_watermark\":" + json_number(rows[i].high) +
           ",\"lag\":" + json_number(rows[i].lag) +
           ",\"epoch\":" + std::to_string(o.epoch.value()) + "}";
  }
  out += "],\"tables\":[";
  for (size_t i = 0; i < tables.size(); ++i) {
    const table_progress& t = tables[i];
    out += (i ? ",{" : "{");
    out += "\"table\":" + json_text(t.table.schema + "." + t.table.name) +
           ",\"newest_source_timestamp\":" +
           (t.newest_source_ts ? json_text(*t.newest_source_ts) : std::string("null")) +
           ",\"applied_at\":" + json_text(t.applied_at) + "}";
  }
  out += "]}\n";
  std::cout << out;
}

void print_text(const config& c, const std::vector<partition_row>& rows,
                const std::vector<table_progress>& tables) {
  std::cout << "connector " << c.name << "\n";
  std::printf("%-40s %9s %14s %14s %12s %7s\n", "topic", "partition", "committed", "high watermark",
              "lag", "epoch");
  for (const partition_row& r : rows) {
    const stored_offset& o = *r.stored;
    const std::string committed = o.next ? std::to_string(o.next->value()) : "-";
    const std::string hw = r.high ? std::to_string(*r.high) : "?";
    const std::string lag = r.lag ? std::to_string(*r.lag) : "?";
    std::printf("%-40s %9d %14s %14s %12s %7lld\n", o.topic.c_str(), o.partition.value(),
                committed.c_str(), hw.c_str(), lag.c_str(),
                static_cast<long long>(o.epoch.value()));
  }
  if (rows.empty()) std::cout << "(no partition claimed yet)\n";

  std::printf("\n%-48s %-32s %-32s\n", "table", "newest applied source timestamp",
              "last applied at");
  for (const table_progress& t : tables) {
    const std::string name = t.table.schema + "." + t.table.name;
    std::printf("%-48s %-32s %-32s\n", name.c_str(),
                t.newest_source_ts ? t.newest_source_ts->c_str() : "-", t.applied_at.c_str());
  }
  if (tables.empty()) std::cout << "(no table written yet)\n";
}

}  // namespace

int status_command(const status_options& options) {
  auto c = load_command_config(options.config_path, "status");
  if (!c) return 2;

  std::vector<stored_offset> offsets;
  std::vector<table_progress> tables;
  try {
    const auto session = make_target(*c)->open("status", retry_policy::bounded());
    const auto reader = session->make_reader(c->name);
    offsets = reader->read_offsets();
    tables = reader->read_table_progress();
  } catch (const std::exception& e) {
    std::cerr << "sluice status: " << target_display_name(target_of(*c))
              << " unreachable: " << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 3;
  }
  std::optional<group_admin> kafka;
  try {
    kafka.emplace(*c, std::chrono::milliseconds(5000));
  } catch (const std::invalid_argument& e) {
    std::cerr << "sluice status: " << redact_secrets(e.what(), c->secrets) << "\n";
    return 2;
  }

  std::vector<partition_row> rows;
  bool kafka_ok = true;
  for (const stored_offset& o : offsets) {
    partition_row r{&o, std::nullopt, std::nullopt};
    try {
      const group_admin::watermarks w = kafka->query_watermarks(o.topic, o.partition.value());
      r.high = w.high;
      r.lag = w.high - (o.next ? o.next->value() : w.low);
    } catch (const std::runtime_error&) {
      kafka_ok = false;
    }
    rows.push_back(r);
  }
  // With no partition to ask about, Kafka is asked anyway: status says when it is away.
  if (offsets.empty()) kafka_ok = kafka_answers(*kafka, *c);

  if (options.json) {
    print_json(*c, rows, tables, kafka_ok);
  } else {
    print_text(*c, rows, tables);
  }
  if (!kafka_ok) {
    std::cerr << "sluice status: Kafka did not answer"
              << (offsets.empty() ? "" : " for every partition") << "\n";
    return 3;
  }
  return 0;
}

}  // namespace sluice
