#include "connector/cli/replayer.h"

#include <chrono>
#include <cstdio>

#include "connector/cli/progress_bar.h"
#include "connector/runtime/stage_factory.h"
#include "core/model/kafka_timestamp.h"
#include "sinks/postgres/batch_applier.h"

namespace sluice {
namespace {

std::string origin_text(const raw_message& m) {
  return std::string(m.topic) + "[" + std::to_string(m.partition.value()) + "]@" +
         std::to_string(m.offset.value());
}

void add(merge_stats& total, const merge_stats& s) {
  total.input += s.input;
  total.rows += s.rows;
  total.collapsed += s.collapsed;
  total.duplicates += s.duplicates;
  total.csn_conflicts += s.csn_conflicts;
}

std::string plural(size_t n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string format_replay_summary(const replay_totals& t, double elapsed_seconds) {
  const apply_stats& a = t.applied;
  std::string s = "replay summary\n";
  auto line = [&](const char* label, const std::string& text) {
    char head[32];
    std::snprintf(head, sizeof head, "  %-14s", label);
    s += head + text + "\n";
  };
  line("messages", format_count(t.messages));
  line("changes", format_count(t.changes));
  std::string written = format_count(a.upserted + a.deleted + a.appended) + " (" +
                        format_count(a.upserted) + " upserted, " + format_count(a.deleted) +
                        " deleted";
  if (a.appended) written += ", " + format_count(a.appended) + " appended";
  line("rows written", written + ")");
  // Changes that reached the database folded into another of their key; merge_stats counts
  // exact duplicates apart from the rest.
  std::string collapsed = format_count(t.merge.collapsed + t.merge.duplicates);
  std::string detail;
  if (t.merge.duplicates) detail = plural(t.merge.duplicates, "duplicate", "duplicates");
  if (t.merge.csn_conflicts) {
    detail += (detail.empty() ? "" : ", ") +
              plural(t.merge.csn_conflicts, "CSN conflict", "CSN conflicts");
  }
  if (!detail.empty()) collapsed += " (" + detail + ")";
  line("collapsed", collapsed);
  line("stale", format_count(a.stale));
  std::string dead = format_count(a.dead_lettered);
  if (t.invalid_lines) {
    dead += " (" + plural(t.invalid_lines, "line", "lines") + " not a kcat -J record)";
  }
  line("dead letters", dead);
  if (t.catalog_updates || t.ddl_records) {
    line("metadata", plural(t.catalog_updates, "catalog update", "catalog updates") + ", " +
                         plural(t.ddl_records, "DDL record", "DDL records"));
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.2f s", elapsed_seconds);
  line("elapsed", elapsed);
  return s;
}

replayer::replayer(const config& c, batch_applier& applier,
                   std::function<void(std::string_view)> report)
    : _config(c),
      _applier(applier),
      _report(std::move(report)),
      _keys(make_session_options(c), retry_policy::bounded(), make_applier_options(c).routing),
      _decoders(c) {
  _decoders.set_key_resolver(
      [this](const table_name& source, std::string_view topic) { return _keys(source, topic); });
}

void replayer::dead_letter_or_stop(dead_letter d, std::string where) {
  std::string text = where + ": " + d.reason;
  if (_config.errors.tolerance == error_tolerance::none) {
    _failure = std::move(text);
    return;
  }
  _report(text);
  _dead.push_back(std::move(d));
}

bool replayer::add_line(std::string_view line) {
  ++_totals.lines;
  _totals.bytes += line.size() + 1;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  if (auto err = _reader.read(line, _record)) {
    dead_letter d;
    d.reason = "not a kcat -J record: " + std::string(to_string(err->code)) + ": " + err->message;
    d.value = std::string(line);
    dead_letter_or_stop(std::move(d), "line " + std::to_string(_totals.lines));
    if (!_failure.empty()) return false;
    ++_totals.invalid_lines;
  } else {
    raw_message raw = _record.view();
    // The range check of `sluice run` (the reader has refused what int64 nanoseconds cannot
    // hold; this adds the bound ahead of the clock): an absurd time is bad input.
    const result<timestamp_ns> stamp = kafka_timestamp_ns(raw.timestamp.value() / 1'000'000, _now);
    if (!stamp) raw.timestamp = timestamp_ns{0};
    if (!decode_or_dead_letter(raw, origin_text(raw),
                               stamp ? std::nullopt : std::optional(stamp.err()))) {
      return false;
    }
    ++_totals.messages;
    _batch_bytes +=
        (_record.key ? _record.key->size() : 0) + (_record.payload ? _record.payload->size() : 0);
  }
  if (++_batch_messages >= _config.batch.size || _batch_bytes >= _config.batch.max_bytes) flush();
  return true;
}

bool replayer::decode_or_dead_letter(const raw_message& raw, std::string where,
                                     std::optional<error> refused) {
  if (raw.timestamp > _newest) _newest = raw.timestamp;
  auto err = refused ? refused : _decoders.for_topic(raw.topic).decode(raw, _pending);
  if (!err) return true;
  dead_letter d;
  d.reason = std::string(to_string(err->code)) + ": " + err->message;
  d.origin = {std::string(raw.topic), raw.partition, raw.offset, raw.timestamp};
  if (raw.key) d.key = std::string(*raw.key);
  if (raw.value) d.value = std::string(*raw.value);
  for (const auto& [name, v] : raw.headers)
    d.headers.emplace_back(std::string(name),
                           v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
  dead_letter_or_stop(std::move(d), std::move(where));
  if (!_failure.empty()) return false;
  ++_totals.undecodable;
  return true;
}

bool replayer::add_message(const raw_message& raw, std::string where) {
  if (!decode_or_dead_letter(raw, std::move(where), std::nullopt)) return false;
  ++_totals.messages;
  ++_batch_messages;
  return true;
}

void replayer::add_changes(std::vector<change>& changes) {
  for (change& c : changes)
    _pending.changes.push_back(std::move(c));
  changes.clear();
  ++_totals.messages;
  ++_batch_messages;
}

bool replayer::add_avro_block(std::string_view topic, std::string_view where, uint64_t first_record,
                              std::string_view block) {
  raw_message raw;
  raw.topic = topic;
  raw.offset = kafka_offset{static_cast<int64_t>(first_record)};
  raw.value = block;
  const size_t before = _pending.changes.size();
  if (auto err = _decoders.for_topic(topic).decode(raw, _pending)) {
    dead_letter d;
    d.reason = std::string(to_string(err->code)) + ": " + err->message;
    d.origin = {std::string(topic), raw.partition, raw.offset, raw.timestamp};
    d.value = std::string(block);
    dead_letter_or_stop(std::move(d), std::string(where));
    if (!_failure.empty()) return false;
    ++_totals.undecodable;
  }
  // One change per record, in file order: each keeps its record's index as its offset.
  for (size_t i = before; i < _pending.changes.size(); ++i) {
    _pending.changes[i].source.origin.offset =
        kafka_offset{static_cast<int64_t>(first_record + (i - before))};
  }
  ++_totals.messages;
  _batch_bytes += block.size();
  if (++_batch_messages >= _config.batch.size || _batch_bytes >= _config.batch.max_bytes) flush();
  return true;
}

bool replayer::add_unreadable(std::string_view topic, std::string_view where, uint64_t offset,
                              const error& e) {
  dead_letter d;
  d.reason = std::string(to_string(e.code)) + ": " + e.message;
  d.origin = {std::string(topic), partition_id{0}, kafka_offset{static_cast<int64_t>(offset)},
              timestamp_ns{0}};
  dead_letter_or_stop(std::move(d), std::string(where));
  if (!_failure.empty()) return false;
  ++_totals.undecodable;
  return true;
}

void replayer::flush() {
  if (_batch_messages == 0 && _dead.empty()) return;
  _totals.changes += _pending.changes.size();
  _totals.catalog_updates += _pending.catalog.size();
  _totals.ddl_records += _pending.ddl.size();
  merged_batch merged = _merge.merge(std::move(_pending.changes));
  batch_metadata metadata{std::move(_pending.catalog), std::move(_pending.ddl),
                          std::move(_pending.pieces), _newest};
  // No progress: a replay moves no offsets.
  const apply_stats stats = _applier.apply(merged, _dead, {}, metadata).stats;
  add(_totals.merge, merged.stats);
  _totals.applied += stats;
  ++_totals.batches;
  _pending.clear();
  _dead.clear();
  _batch_messages = 0;
  _batch_bytes = 0;
}

}  // namespace sluice
