// `sluice dead-letters list|show|replay|purge`: the dead letters of a connector
// (<state schema>.dead_letters) by filter — looked at, re-applied once their cause is fixed,
// or purged.
//
// replay goes through what `sluice replay` uses (drive/replayer.h: the prepare stage every
// driver shares, then apply), one batch.size of letters per transaction, with the CSN guard
// and tombstones as for the stream:
//   decode letters          their raw message, through the prepare stage's rules again
//                           (timestamp, decode, table filter)
//   routing, rejected,      the changes the letter stands for (stored_letter.h): one merged
//   ddl_failed, keyless     row gives back its delete and upserts at their own CSNs; they
//                           enter the prepare stage after decoding, never decoded again
//   chunk letters           skipped: a piece alone is no record (replay the topic instead)
// In the batch's transaction the letters it took are deleted (the applier's
// remove_replayed_letters); one that fails again keeps its id and takes its new reason in that
// same transaction (and the command exits 1). So a letter leaves exactly when its rows are in, a
// letter whose row a newer change has since overtaken changes nothing (stale) and leaves, and
// offsets never move. One replay of a connector at a time (take_replay_turn): two would take
// the same letters. purge --yes needs an upper bound (--up-to-id, which list and the dry count
// print, --until or --id): letters written after the operator looked are never purged.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "connector/base/sink_options.h"
#include "connector/base/target_names.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/config/redact.h"
#include "connector/drive/replayer.h"
#include "connector/prepare/stored_letter.h"
#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "schemas/common/timestamp_parser.h"
#include "sinks/session_error.h"
#include "sinks/target.h"

namespace sluice {
namespace {

// A --since / --until time as sluice reads times (ISO 8601, UTC unless it says; or epoch
// milliseconds), as one UTC text for the target, so that the target never reads it another
// way (PostgreSQL would read a time without a zone in its session's zone, and answer junk
// with its own error); nullopt when it is no time.
std::optional<std::string> canonical_time(const std::string& text) {
  const result<timestamp_ns> t = parse_timestamp(text);
  if (!t) return std::nullopt;
  constexpr int64_t ns_per_s = 1'000'000'000;
  const int64_t ns = t.value().value();
  const int64_t floor_s = ns / ns_per_s - (ns % ns_per_s < 0 ? 1 : 0);
  const auto micros = static_cast<int>((ns - floor_s * ns_per_s) / 1000);
  const auto secs = static_cast<std::time_t>(floor_s);
  std::tm tm{};
  if (!gmtime_r(&secs, &tm)) return std::nullopt;
  char out[64];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
  return std::string(out);
}

dead_letter_filter filter_of(const dead_letters_options& o) {
  dead_letter_filter f;
  f.table = o.table;
  f.kind = o.kind;
  f.reason = o.reason;
  f.topic = o.topic;
  f.since = o.since;
  f.until = o.until;
  f.ids = o.ids;
  f.up_to_id = o.up_to_id;
  return f;
}

std::string origin_of(const stored_dead_letter& d) {
  if (!d.topic) return "-";
  return *d.topic + "[" + std::to_string(d.partition) + "]@" + std::to_string(d.offset);
}

std::string one_line(std::string text, size_t width) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  return text;
}

// Whether bytes are printable UTF-8 text (else they are shown as base64).
bool printable(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    if (n == 1 && c < 0x20 && c != '\n' && c != '\t' && c != '\r') return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

std::string json_line(const stored_dead_letter& d) {
  std::string out = "{\"id\":" + std::to_string(d.id) + ",\"created_at\":";
  append_json_string(out, d.created_at);
  out += ",\"kind\":";
  append_json_string(out, d.kind);
  out += ",\"table\":";
  append_json_string(out, d.target);
  out += ",\"topic\":";
  if (d.topic) {
    append_json_string(out, *d.topic);
    out +=
        ",\"partition\":" + std::to_string(d.partition) + ",\"offset\":" + std::to_string(d.offset);
  } else {
    out += "null";
  }
  out += ",\"reason\":";
  append_json_string(out, d.reason);
  return out + "}";
}

void print_bytes(const char* label, const std::optional<std::string>& bytes) {
  if (!bytes) {
    std::cout << label << ": (none)\n";
  } else if (printable(*bytes)) {
    std::cout << label << " (" << bytes->size() << " bytes):\n" << *bytes << "\n";
  } else {
    std::cout << label << " (" << bytes->size() << " bytes, base64):\n"
              << encode_base64(*bytes) << "\n";
  }
}

int list(sink::dead_letter_store& store, const dead_letters_options& o) {
  const dead_letter_filter f = filter_of(o);
  auto [letters, total] = store.list(f, o.limit);
  if (o.json) {
    for (const stored_dead_letter& d : letters)
      std::cout << json_line(d) << "\n";
    return 0;
  }
  std::printf("%-8s %-24s %-10s %-28s %-28s %s\n", "id", "created (UTC)", "kind", "table", "origin",
              "reason");
  for (const stored_dead_letter& d : letters) {
    std::printf("%-8lld %-24s %-10s %-28s %-28s %s\n", static_cast<long long>(d.id),
                d.created_at.c_str(), d.kind.empty() ? "-" : d.kind.c_str(),
                d.target.empty() ? "-" : d.target.c_str(), origin_of(d).c_str(),
                one_line(d.reason, 100).c_str());
  }
  std::printf("%zu of %llu dead letter(s)%s\n", letters.size(),
              static_cast<unsigned long long>(total),
              letters.size() < total ? " (--limit N shows more)" : "");
  // What a later purge or replay of "these" must stay within: letters written since are not
  // what the operator looked at.
  if (total > 0) {
    const auto newest = static_cast<long long>(store.last_id(f));
    std::printf("newest id %lld: add --up-to-id %lld to purge or replay exactly these\n", newest,
                newest);
  }
  return 0;
}

int show(sink::dead_letter_store& store, const dead_letters_options& o) {
  dead_letter_filter f;
  f.ids = o.ids;
  const std::optional<stored_dead_letter> letter = store.show(f);
  if (!letter) {
    std::cerr << "sluice dead-letters show: no dead letter " << o.ids.front() << " here\n";
    return 1;
  }
  const stored_dead_letter& d = *letter;
  if (o.json) {
    std::string line = json_line(d);
    line.pop_back();
    for (const auto& [name, bytes] : {std::pair{"key", &d.key}, std::pair{"value", &d.value}}) {
      line += ",\"" + std::string(name) + "_base64\":";
      if (*bytes) {
        append_json_string(line, encode_base64(**bytes));
      } else {
        line += "null";
      }
    }
    std::cout << line << ",\"headers\":" << d.headers_json << "}\n";
    return 0;
  }
  std::cout << "id:       " << d.id << "\ncreated:  " << d.created_at
            << "\nkind:     " << (d.kind.empty() ? "-" : d.kind)
            << "\ntable:    " << (d.target.empty() ? "-" : d.target)
            << "\norigin:   " << origin_of(d) << "\nreason:   " << d.reason
            << "\nheaders:  " << d.headers_json << "\n";
  print_bytes("key", d.key);
  print_bytes("value", d.value);
  return 0;
}

int purge(sink::dead_letter_store& store, const dead_letters_options& o) {
  const dead_letter_filter f = filter_of(o);
  const uint64_t n = store.purge(f, /*dry_run=*/!o.yes);
  if (!o.yes && n == 0) {
    std::cout << "no dead letter matches: nothing to purge\n";
    return 0;
  }
  if (!o.yes) {
    // The bound the purge must keep: a letter is the only copy of its message, and one
    // written after this count is not among what the operator decided on.
    const int64_t newest = store.last_id(f);
    std::cout << n << " dead letter(s) match, the newest id " << newest
              << "; nothing purged: add --up-to-id " << newest << " --yes to purge exactly these\n";
    return 1;
  }
  std::cout << "purged " << n << " dead letter(s)\n";
  return 0;
}

struct replay_counts {
  size_t taken = 0;    // letters put into batches (and deleted with them)
  size_t skipped = 0;  // letters that cannot be replayed, left as they are
};

// Why a letter cannot be replayed, seen without decoding it; "" when it can be tried.
std::string cannot_replay(const stored_dead_letter& d) {
  if (d.kind == "chunk") {
    return "a piece of a chunked record alone is no record (replay its topic instead)";
  }
  if (d.kind == "decode" || d.kind.empty()) {
    return d.topic ? "" : "no Kafka topic to decode it as";
  }
  return d.value ? "" : "it holds no stored change";
}

// --dry-run: what a replay would take and skip, nothing applied, nothing locked.
int replay_dry_run(sink::dead_letter_store& store, const dead_letter_filter& f,
                   const dead_letters_options& o, size_t page_size) {
  const int64_t last_id = store.last_id(f);
  replay_counts counts;
  int64_t after = 0;
  bool full = false;
  while (!full) {
    const std::vector<stored_dead_letter> page = store.page(f, after, page_size);
    if (page.empty() || page.front().id > last_id) break;
    for (const stored_dead_letter& d : page) {
      after = d.id;
      if (d.id > last_id) break;
      const std::string why = cannot_replay(d);
      if (!why.empty()) {
        std::cout << "would skip letter " << d.id << ": " << why << "\n";
        ++counts.skipped;
        continue;
      }
      std::cout << "would replay letter " << d.id << " (" << (d.kind.empty() ? "-" : d.kind) << ", "
                << (d.target.empty() ? "-" : d.target) << ")\n";
      ++counts.taken;
      if (o.replay_limit != 0 && counts.taken >= o.replay_limit) {
        full = true;
        break;
      }
    }
  }
  std::cout << "dead-letters replay --dry-run: " << counts.taken << " letter(s) would be taken, "
            << counts.skipped << " skipped; nothing applied\n";
  return 0;
}

int replay(const config& c, sink::target_session& session, sink::dead_letter_store& store,
           const dead_letters_options& o) {
  if (o.dry_run) return replay_dry_run(store, filter_of(o), o, c.batch.size);
  store.take_replay_turn([&] {
    std::cerr << "another dead-letters replay of " << c.name
              << " is running: waiting for it to end\n";
  });
  const auto applier = session.make_applier(make_applier_options(c));
  size_t reported = 0;
  replayer replay(c, *applier, [&](std::string_view text) {
    if (reported++ < 20) std::cerr << "still failing: " << text << "\n";
  });
  std::vector<int64_t> batch_ids;  // the letters of the batch being built
  applier->remove_replayed_letters(&batch_ids);

  const dead_letter_filter f = filter_of(o);
  // Letters written by the replay itself (what fails again) come after the last id there
  // now: they are not taken again.
  const int64_t last_id = store.last_id(f);
  replay_counts counts;
  int64_t after = 0;
  std::vector<change> changes;
  bool full = false;  // --limit reached
  while (!full) {
    std::vector<stored_dead_letter> page = store.page(f, after, c.batch.size);
    while (!page.empty() && page.back().id > last_id)
      page.pop_back();
    if (page.empty()) break;
    after = page.back().id;
    for (const stored_dead_letter& d : page) {
      if (o.replay_limit != 0 && counts.taken >= o.replay_limit) {
        full = true;
        break;
      }
      const std::string where = "letter " + std::to_string(d.id);
      if (const std::string why = cannot_replay(d); !why.empty()) {
        std::cerr << "skipped " << where << ": " << why << "\n";
        ++counts.skipped;
      } else if (d.kind == "decode" || d.kind.empty()) {
        source_message m;
        m.raw.topic = *d.topic;
        m.raw.partition = partition_id{d.partition};
        m.raw.offset = kafka_offset{d.offset};
        m.timestamp_ms = d.timestamp_ms;
        if (d.key) m.raw.key = *d.key;
        if (d.value) m.raw.value = *d.value;
        m.where = where;
        auto headers = read_stored_headers(d.headers_json);
        if (!headers) {
          std::cerr << "skipped " << where << ": " << headers.err().message << "\n";
          ++counts.skipped;
          continue;
        }
        for (const auto& [name, bytes] : *headers)
          m.raw.headers.emplace_back(
              name, bytes ? std::optional<std::string_view>(*bytes) : std::nullopt);
        if (!replay.add_letter(m)) break;  // errors.tolerance: none
        batch_ids.push_back(d.id);
        ++counts.taken;
      } else if (auto err = read_stored_letter(*d.value, replay.catalog(), changes)) {
        std::cerr << "skipped " << where << ": " << err->message << "\n";
        changes.clear();
        ++counts.skipped;
      } else {
        // The letter's own origin: a change that fails again is a letter of the same message
        // (and keeps this letter's id, settle_replayed).
        for (change& ch : changes) {
          ch.source.origin.topic = d.topic.value_or("");
          ch.source.origin.partition = partition_id{d.partition};
          ch.source.origin.offset = kafka_offset{d.offset};
          ch.source.origin.timestamp = timestamp_ns{d.timestamp_ms * 1'000'000};
        }
        replay.add_changes(changes);
        batch_ids.push_back(d.id);
        ++counts.taken;
      }
    }
    replay.flush();
    batch_ids.clear();
    if (!replay.failure().empty()) break;
  }
  const replay_totals& t = replay.totals();
  std::cout << "dead-letters replay\n"
            << "  letters taken   " << counts.taken << " (deleted with the batch that took them)\n"
            << "  rows written    " << t.applied.upserted + t.applied.deleted + t.applied.appended
            << " (" << t.applied.upserted << " upserted, " << t.applied.deleted << " deleted)\n"
            << "  stale           " << t.applied.stale << " (a newer change was there)\n"
            << "  failing again   " << t.applied.dead_lettered << " (kept, with their new reason)\n"
            << "  skipped         " << counts.skipped << " (left as they are)\n";
  if (!replay.failure().empty()) {
    std::cerr << "sluice dead-letters replay: stopped at " << replay.failure()
              << " (errors.tolerance: none; the batches before it are applied)\n";
    return 1;
  }
  if (t.applied.dead_lettered > 0) {
    // Nothing is lost (they are letters again), but the fix did not cover them: a script
    // must not take this for done.
    std::cerr << "sluice dead-letters replay: " << t.applied.dead_lettered
              << " letter(s) failed again; `sluice dead-letters list` shows their reason now\n";
    return 1;
  }
  return 0;
}

}  // namespace

int dead_letters_command(const dead_letters_options& given) {
  auto c = load_command_config(given.config_path, "dead-letters");
  if (!c) return 2;
  dead_letters_options o = given;
  if (o.action == dead_letters_options::action_kind::purge && o.yes && !o.up_to_id && !o.until &&
      o.ids.empty()) {
    std::cerr << "sluice dead-letters purge: --yes needs an upper bound, so that letters written "
                 "after you counted them stay: --up-to-id ID (the count without --yes prints "
                 "it), --until T or --id ID\n";
    return 2;
  }
  for (auto [flag, time] : {std::pair{"--since", &o.since}, std::pair{"--until", &o.until}}) {
    if (!*time) continue;
    std::optional<std::string> canonical = canonical_time(**time);
    if (!canonical) {
      std::cerr << "sluice dead-letters: " << flag << " " << **time
                << " is neither an ISO 8601 time (e.g. 2026-12-03T10:00:00Z) nor epoch "
                   "milliseconds\n";
      return 2;
    }
    *time = std::move(*canonical);
  }
  // A person waits for this command: a short, bounded retry policy, never a hang.
  const auto session = make_target(*c)->open("dead-letters", retry_policy::bounded());
  const auto store = session->make_dead_letter_store(c->name);
  try {
    switch (o.action) {
      case dead_letters_options::action_kind::list:
        return list(*store, o);
      case dead_letters_options::action_kind::show:
        return show(*store, o);
      case dead_letters_options::action_kind::purge:
        return purge(*store, o);
      case dead_letters_options::action_kind::replay:
        return replay(*c, *session, *store, o);
    }
  } catch (const session_error& e) {
    std::cerr << "sluice dead-letters: " << target_display_name(target_of(*c)) << ": "
              << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "sluice dead-letters: " << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 1;
  }
  return 2;
}

}  // namespace sluice
