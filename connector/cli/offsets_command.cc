// `sluice offsets show|reset -c FILE`: sluice's offsets (in the target, the truth) beside the
// Kafka group's copy, the watermarks and the lag; and moving them (issue 15, after Connect's
// KIP-875 offsets API).
//
//   show:  per partition of the configured topics (and any sluice still has offsets for):
//          sluice's next offset, the group's committed copy, low and high watermarks, lag,
//          owner epoch; a table, or --json lines. Where Kafka does not answer (away, or a
//          topic it does not list), what the target holds is shown without it (exit 3 when away)
//   reset: resolve the targets (--to-earliest / --to-latest: the watermarks; --to-offset N,
//          clamped into them; --to-datetime T: the broker's offsets-for-times, the high
//          watermark where no message is that late), print the plan; --dry-run stops there;
//          refuse while the connector's group has live members (DescribeConsumerGroups);
//          move sluice's offsets and bump the owner epochs in one transaction; then set the
//          group's copy to the same offsets (AlterConsumerGroupOffsets)
//
// Exit codes: 0 done; 1 refused (live members) or failed; 2 usage or configuration error;
// 3 Kafka or the target (PostgreSQL, MariaDB: named in the message) unreachable.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "connector/base/sink_options.h"
#include "connector/base/target_names.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/config/redact.h"
#include "connector/source/group_admin.h"
#include "core/model/json_text.h"
#include "schemas/common/timestamp_parser.h"
#include "sinks/session_error.h"
#include "sinks/target.h"

namespace sluice {
namespace {

constexpr std::chrono::milliseconds kafka_timeout{5000};

struct partition_row {
  std::string topic;
  int32_t partition = 0;
  std::optional<int64_t> sluice;  // next offset in PostgreSQL
  std::optional<int64_t> group;   // the Kafka group's committed copy
  int64_t epoch = 0;
  // The watermarks; nullopt when Kafka did not answer for the partition (it is away, or no
  // longer knows the topic sluice still holds offsets for).
  std::optional<int64_t> low, high;
  std::optional<int64_t> target;  // reset only
};

std::string text(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

// An ISO 8601 time (2026-12-03T10:00:00Z, …T10:00:00.250+01:00; UTC without a zone) or
// epoch milliseconds → ms since 1970, as Kafka timestamps count.
std::optional<int64_t> parse_datetime(const std::string& t) {
  const result<timestamp_ns> ts = parse_timestamp(t);
  if (!ts) return std::nullopt;
  return ts.value().value() / 1'000'000;
}

// What the command works on: the chosen (or configured) topics' partitions, with sluice's
// offsets, the group's copy and the watermarks; with all_stored, also every partition sluice
// holds offsets for (a topic Kafka does not list shows them with no watermarks). Throws
// session_error when PostgreSQL does not answer; where Kafka does not, the rows lack what it
// would have said and `kafka_ok` turns false.
std::vector<partition_row> gather(const config& c, group_admin& kafka,
                                  sink::target_session& session, std::vector<std::string> topics,
                                  const std::vector<int32_t>& only_partitions, bool all_stored,
                                  bool& kafka_ok) {
  const std::vector<stored_offset> stored = session.make_reader(c.name)->read_offsets();
  if (all_stored) {
    for (const stored_offset& o : stored)
      topics.push_back(o.topic);
  }
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  const auto chosen = [&](int32_t p) {
    return only_partitions.empty() ||
           std::find(only_partitions.begin(), only_partitions.end(), p) != only_partitions.end();
  };

  std::map<std::string, std::vector<int32_t>> partitions;
  try {
    partitions = kafka.partitions(topics);
  } catch (const std::runtime_error&) {
    kafka_ok = false;
  }
  std::map<topic_partition_key, partition_row> rows;
  for (const auto& [topic, parts] : partitions) {
    for (int32_t p : parts) {
      if (!chosen(p)) continue;
      partition_row& row = rows[{topic, p}];
      row.topic = topic;
      row.partition = p;
      try {
        const group_admin::watermarks w = kafka.query_watermarks(topic, p);
        row.low = w.low;
        row.high = w.high;
      } catch (const std::runtime_error&) {
        kafka_ok = false;
      }
    }
  }
  for (const stored_offset& o : stored) {
    const int32_t p = o.partition.value();
    if (!chosen(p) || !std::binary_search(topics.begin(), topics.end(), o.topic)) continue;
    partition_row& row = rows[{o.topic, p}];
    row.topic = o.topic;
    row.partition = p;
    if (o.next) row.sluice = o.next->value();
    row.epoch = o.epoch.value();
  }
  std::vector<topic_partition_key> keys;
  for (const auto& [key, row] : rows)
    if (row.high) keys.push_back(key);
  // librdkafka refuses an empty partition list: no partition Kafka knows, no group copy.
  if (!keys.empty()) {
    try {
      const std::string group = c.kafka_property("group.id").value_or(c.name);
      for (const auto& [key, offset] : kafka.committed(group, keys))
        rows[key].group = offset;
    } catch (const std::runtime_error&) {
      kafka_ok = false;
    }
  }
  std::vector<partition_row> out;
  for (auto& [key, row] : rows)
    out.push_back(std::move(row));
  return out;
}

std::optional<int64_t> lag(const partition_row& r) {
  if (!r.high) return std::nullopt;
  return *r.high - (r.sluice ? *r.sluice : r.low.value_or(0));
}

void print_table(const std::vector<partition_row>& rows, bool plan) {
  std::printf("%-36s %9s %12s %12s %12s %12s %10s %6s", "topic", "partition", "sluice",
              "group copy", "low", "high", "lag", "epoch");
  if (plan) std::printf(" %12s  %s", "reset to", "change");
  std::printf("\n");
  for (const partition_row& r : rows) {
    std::printf("%-36s %9d %12s %12s %12s %12s %10s %6lld", r.topic.c_str(), r.partition,
                text(r.sluice).c_str(), text(r.group).c_str(), text(r.low).c_str(),
                text(r.high).c_str(), text(lag(r)).c_str(), static_cast<long long>(r.epoch));
    if (plan && r.target) {
      const int64_t from = r.sluice ? *r.sluice : r.low.value_or(0);
      const int64_t delta = *r.target - from;
      std::string change = delta == 0  ? "none"
                           : delta < 0 ? "re-applies " + std::to_string(-delta) + " message(s)"
                                       : "skips " + std::to_string(delta) + " message(s)";
      if (!r.sluice) change += " (nothing committed yet)";
      std::printf(" %12lld  %s", static_cast<long long>(*r.target), change.c_str());
    }
    std::printf("\n");
  }
  if (rows.empty()) std::printf("(no partition)\n");
}

void print_json(const std::vector<partition_row>& rows) {
  for (const partition_row& r : rows) {
    std::string line = "{\"topic\":";
    append_json_string(line, r.topic);
    line += ",\"partition\":" + std::to_string(r.partition);
    line += ",\"sluice_offset\":" + (r.sluice ? std::to_string(*r.sluice) : "null");
    line += ",\"group_offset\":" + (r.group ? std::to_string(*r.group) : "null");
    line += ",\"low_watermark\":" + (r.low ? std::to_string(*r.low) : "null");
    line += ",\"high_watermark\":" + (r.high ? std::to_string(*r.high) : "null");
    line += ",\"lag\":" + (lag(r) ? std::to_string(*lag(r)) : "null");
    line += ",\"owner_epoch\":" + std::to_string(r.epoch) + "}";
    std::cout << line << "\n";
  }
}

// The configured topics, or what topics.regex matches now; --topic must be among them.
std::optional<std::vector<std::string>> chosen_topics(const config& c, group_admin& kafka,
                                                      const std::vector<std::string>& chosen) {
  std::vector<std::string> known =
      c.topics_regex.empty() ? c.topics : kafka.topics_matching(c.topics_regex);
  if (chosen.empty()) return known;
  for (const std::string& t : chosen) {
    if (std::find(known.begin(), known.end(), t) == known.end()) {
      std::cerr << "sluice offsets: topic " << t << " is not one this connector consumes\n";
      return std::nullopt;
    }
  }
  return chosen;
}

}  // namespace

int offsets_command(const offsets_options& o) {
  auto c = load_command_config(o.config_path, "offsets");
  if (!c) return 2;
  const bool reset = o.action == offsets_options::action_kind::reset;
  std::optional<int64_t> at_time;
  if (reset && o.to_datetime) {
    at_time = parse_datetime(*o.to_datetime);
    if (!at_time) {
      std::cerr
          << "sluice offsets reset: --to-datetime " << *o.to_datetime
          << " is neither an ISO 8601 time (e.g. 2026-12-03T10:00:00Z) nor epoch milliseconds\n";
      return 2;
    }
  }
  const auto shown = [&](const std::string& what) {
    return redact_secrets(redact(what), c->secrets);
  };
  std::optional<group_admin> kafka;
  try {
    kafka.emplace(*c, kafka_timeout);
  } catch (const std::invalid_argument& e) {
    std::cerr << "sluice offsets: " << shown(e.what()) << "\n";
    return 2;
  }
  const std::string group = c->kafka_property("group.id").value_or(c->name);
  // A person waits for this command: a short, bounded retry policy, never a hang.
  const auto target = make_target(*c);
  const auto session = target->open("offsets", retry_policy::bounded());
  const std::string_view db = target_display_name(target_of(*c));  // "PostgreSQL", in messages

  std::vector<partition_row> rows;
  std::optional<group_admin::group_state> state;
  bool kafka_ok = true;
  try {
    std::optional<std::vector<std::string>> topics;
    try {
      topics = chosen_topics(*c, *kafka, o.topics);
    } catch (const std::runtime_error& e) {
      // Kafka away: `show` still shows what the target holds; a reset needs Kafka.
      if (reset) throw;
      kafka_ok = false;
      topics = o.topics.empty() ? c->topics : o.topics;
    }
    if (!topics) return 2;
    rows =
        gather(*c, *kafka, *session, *topics, o.partitions, !reset && o.topics.empty(), kafka_ok);
    if (kafka_ok) state = kafka->describe_group(group);
  } catch (const session_error& e) {
    std::cerr << "sluice offsets: " << db << ": " << shown(e.what()) << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "sluice offsets: Kafka: " << shown(e.what()) << "\n";
    return 3;
  }

  if (!reset) {
    if (o.json) {
      print_json(rows);
    } else {
      std::cout << "connector " << c->name << ", group " << group << " ("
                << (state ? state->state + ", " + std::to_string(state->members) + " member(s)"
                          : std::string("Kafka did not answer"))
                << ")\n";
      print_table(rows, false);
    }
    if (!kafka_ok) {
      std::cerr << "sluice offsets: Kafka did not answer: the offsets " << db
                << " holds are shown without the watermarks and the group's copy\n";
      return 3;
    }
    return 0;
  }
  if (!kafka_ok) {
    std::cerr << "sluice offsets reset: Kafka did not answer for every partition (nothing "
                 "changed)\n";
    return 3;
  }

  try {
    std::vector<topic_partition_key> keys;
    for (const partition_row& r : rows)
      if (r.high) keys.emplace_back(r.topic, r.partition);
    const auto at = at_time && !keys.empty()
                        ? kafka->offsets_for_time(keys, *at_time)
                        : std::map<topic_partition_key, std::optional<int64_t>>{};
    for (partition_row& r : rows) {
      if (!r.low || !r.high) {
        // A partition sluice holds offsets for that Kafka does not list: nothing to move to.
        continue;
      }
      if (o.to_earliest) {
        r.target = *r.low;
      } else if (o.to_latest) {
        r.target = *r.high;
      } else if (o.to_offset) {
        r.target = std::clamp(*o.to_offset, *r.low, *r.high);
      } else {
        const auto it = at.find({r.topic, r.partition});
        r.target = it != at.end() && it->second ? *it->second : *r.high;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "sluice offsets: Kafka: " << shown(e.what()) << "\n";
    return 3;
  }
  if (std::none_of(rows.begin(), rows.end(), [](const partition_row& r) { return r.target; })) {
    std::cerr << "sluice offsets reset: no partition chosen that Kafka knows\n";
    return 2;
  }
  std::cout << "connector " << c->name << ", group " << group << " (" << state->state << ", "
            << state->members << " member(s))\n";
  print_table(rows, true);
  if (state->members > 0) {
    std::cerr << "sluice offsets reset: the group " << group << " has " << state->members
              << " live member(s): stop every sluice of connector " << c->name
              << " first (a running one would keep its old position)\n";
    return o.dry_run ? 0 : 1;
  }
  if (o.dry_run) {
    std::cout << "dry run: nothing changed\n";
    return 0;
  }

  std::vector<offset_target> targets;
  std::map<topic_partition_key, int64_t> group_offsets;
  for (const partition_row& r : rows) {
    if (!r.target) continue;
    targets.push_back({r.topic, partition_id(r.partition), kafka_offset(*r.target)});
    group_offsets[{r.topic, r.partition}] = *r.target;
  }
  try {
    const std::vector<stored_offset> moved = session->make_offset_admin(c->name)->reset(targets);
    std::cout << "reset " << moved.size() << " partition(s) in " << db << "; owner epochs now";
    for (const stored_offset& m : moved)
      std::cout << " " << m.topic << "[" << m.partition.value() << "]=" << m.epoch.value();
    std::cout << "\n";
  } catch (const std::exception& e) {
    std::cerr << "sluice offsets reset: " << db << ": " << shown(e.what())
              << " (nothing changed)\n";
    return 3;
  }
  try {
    kafka->alter_committed(group, group_offsets);
    std::cout << "the group " << group << "'s committed offsets follow\n";
  } catch (const std::exception& e) {
    // sluice resumes from the target: the group's copy is for the tools that read it.
    std::cerr << "sluice offsets reset: the group's copy in Kafka was not updated ("
              << shown(e.what()) << "); sluice resumes from " << db << " all the same, and "
              << "overwrites the copy at its first commit\n";
  }
  return 0;
}

}  // namespace sluice
