// Property tests of the MariaDB apply path (merge_engine, then mdb::batch_applier) against a
// real MariaDB (the `mariadb` fixture), the counterpart of tests/sinks/apply_property_
// integration_test.cc: random change histories (inserts, updates, partial images, deletes, key
// changes, equal-CSN key shifts and conflicting images, truncates), applied in any order, any
// number of times (every change delivered 1–3 times), in any batch split, by one applier or by
// two racing ones on two sessions, with hard or soft deletes, truncates applied or only counted,
// key locks or whole-table locks, must leave exactly the state SPEC §4 defines (expected_state
// in tests/sinks/apply_history.h), row by row and column by column; every lane's offsets go
// through the compare-and-set of its claimed partition. Then named regressions of MariaDB's
// traps (equal-CSN images, a late older partial after a delete, a late older upsert after a
// truncate, …).
//
// The oracle speaks PostgreSQL's printed forms; MariaDB prints a decimal(65,30) with its scale
// and a boolean as 1/0: both sides are compared in one canonical form per column type
// (canonical() below).
//
// A failing run prints its seed; SLUICE_PROPERTY_SEED=<seed> replays that run alone,
// SLUICE_PROPERTY_MASTER_SEED=<seed> the whole test. A full run stops after
// SLUICE_PROPERTY_HISTORIES histories (default 150) or SLUICE_PROPERTY_SECONDS seconds
// (default 60), whichever comes first.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/apply_history.h"
#include "tests/sinks/mariadb/mdb_test_env.h"
#include "tests/sinks/mariadb/mdb_test_sink.h"

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;
using testing::mdb_test_policy;
using testing::mdb_test_sink;
using testing::unique_name;

std::optional<uint64_t> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::stoull(v, nullptr, 0);
}

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

csn seq(int64_t n) {
  return csn_builder().add(n).build();
}

// A value as the oracle prints it (PostgreSQL's text) and as MariaDB prints it, in one form:
// a decimal without the zeros its scale pads it with, a boolean (tinyint(1)) as true/false.
// Text columns (a column created from nulls) hold the oracle's text as it is.
std::optional<std::string> canonical(std::optional<std::string> v, const std::string& type) {
  if (!v) return v;
  if (type == "decimal" && v->find('.') != std::string::npos) {
    while (v->back() == '0')
      v->pop_back();
    if (v->back() == '.') v->pop_back();
  } else if (type == "tinyint") {
    if (*v == "1") return "true";
    if (*v == "0") return "false";
  }
  return v;
}

// One test's world: a database for the replica tables (the source schema routes to the
// database of the same name), a state database, a catalog, and a connection for looking.
struct world {
  std::string dsn = testing::mariadb_dsn();
  std::string schema = unique_name("mprop");
  std::string state = unique_name("mprop_state");
  table_catalog catalog;
  merge_engine merger;
  mdb::connection look{settings()};

  static mdb::connect_settings settings() {
    mdb::connect_settings s = testing::mariadb_settings();
    s.init = {"SET time_zone = '+00:00'", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"};
    return s;
  }

  world() { drop(); }
  ~world() {
    try {
      drop();
    } catch (...) {
    }
  }
  void drop() {
    look.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(schema));
    look.exec("DROP DATABASE IF EXISTS " + mdb::quote_identifier(state));
  }

  apply_options options(const std::string& connector = "prop") const {
    apply_options o;
    o.state_schema = state;
    o.connector = connector;
    return o;
  }

  table_entry* table(const std::string& name) {
    return catalog.intern(table_name{"", schema, name});
  }
  std::string target(const std::string& table) const {
    return mdb::quote_identifier(schema) + "." + mdb::quote_identifier(table);
  }

  // Column name -> DATA_TYPE of a replica table (empty: no table yet).
  std::map<std::string, std::string> columns(const std::string& table) {
    std::map<std::string, std::string> out;
    const std::vector<mdb::param> p = {mdb::param::text(schema), mdb::param::text(table)};
    const mdb::result r = look.query(
        "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND "
        "TABLE_NAME = ?",
        p);
    for (const auto& row : r.rows)
      out[row.at(0).value_or("")] = row.at(1).value_or("");
    return out;
  }

  // The replica table's rows in canonical form; columns not (yet) created read NULL. Rows
  // soft-deleted (delete.mode: soft) are left out, or, with deleted_only, the only ones read.
  std::map<int64_t, row_texts> rows(const std::string& table, bool deleted_only = false) {
    const std::map<std::string, std::string> have = columns(table);
    std::map<int64_t, row_texts> out;
    if (have.empty()) return out;
    std::string select = "SELECT id";
    for (const char* c : history_columns)
      select += have.count(c) ? std::string(", ") + mdb::quote_identifier(c) : ", NULL";
    std::string where;
    if (have.count("_sluice_deleted")) {
      where = deleted_only ? " WHERE `_sluice_deleted`" : " WHERE NOT `_sluice_deleted`";
    } else if (deleted_only) {
      return out;
    }
    const mdb::result r = look.query(select + " FROM " + target(table) + where);
    for (const auto& fields : r.rows) {
      row_texts row;
      for (size_t c = 0; c < row.size(); ++c) {
        const auto type = have.find(history_columns[c]);
        row[c] = canonical(fields.at(c + 1), type == have.end() ? "" : type->second);
      }
      out.emplace(std::stoll(fields.at(0).value_or("0")), std::move(row));
    }
    return out;
  }

  // The oracle's state in the canonical form of the table's column types.
  std::map<int64_t, row_texts> canonical_expected(const std::map<int64_t, row_texts>& expected,
                                                  const std::string& table) {
    const std::map<std::string, std::string> have = columns(table);
    std::map<int64_t, row_texts> out;
    for (const auto& [key, row] : expected) {
      row_texts r;
      for (size_t c = 0; c < row.size(); ++c) {
        const auto type = have.find(history_columns[c]);
        r[c] = canonical(row[c], type == have.end() ? "" : type->second);
      }
      out.emplace(key, std::move(r));
    }
    return out;
  }

  // Of row `id`: its columns a and b, "-" for NULL ("no row" when there is none).
  std::string ab_of(const std::string& table, int64_t id, size_t columns = 2) {
    const auto all = rows(table);
    const auto it = all.find(id);
    if (it == all.end()) return "no row";
    std::string out;
    for (size_t c = 0; c < columns; ++c)
      out += (c ? "," : "") + it->second[c].value_or("-");
    return out;
  }
  // Every row, "id:a,b" in key order, space-separated.
  std::string all_of(const std::string& table) {
    std::string out;
    for (const auto& [id, row] : rows(table)) {
      out += (out.empty() ? "" : " ") + std::to_string(id) + ":" + row[0].value_or("-") + "," +
             row[1].value_or("-");
    }
    return out;
  }

  std::optional<std::string> one(const std::string& sql) {
    const mdb::result r = look.query(sql);
    if (r.empty()) return std::nullopt;
    return r.at(0, 0);
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql).value_or("0")); }
};

// The differences between a replica table and the expected state, one line each.
std::vector<std::string> differences(const std::map<int64_t, row_texts>& expected,
                                     const std::map<int64_t, row_texts>& actual) {
  std::vector<std::string> out;
  std::set<int64_t> keys;
  for (const auto& [k, _] : expected)
    keys.insert(k);
  for (const auto& [k, _] : actual)
    keys.insert(k);
  for (int64_t k : keys) {
    auto e = expected.find(k);
    auto a = actual.find(k);
    const std::string want = e == expected.end() ? "no row" : describe(e->second);
    const std::string got = a == actual.end() ? "no row" : describe(a->second);
    if (want != got) {
      out.push_back("key " + std::to_string(k) + ": expected " + want + ", got " + got);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

// One run: a table of its own, histories over disjoint key ranges, their changes shuffled,
// duplicated and split into batches that one applier, or two racing ones on two sessions,
// apply, each through its own claimed partition (offsets compare-and-set on every batch).
struct run_config {
  uint64_t seed = 0;
  int histories = 0;
  history_options history;
  double duplicates = 0;  // chance that a change is sent again (once or twice more)
  bool split_key_changes = false;
  size_t max_batch = 1;
  int lanes = 1;
  bool soft_deletes = false;      // delete.mode: soft (no partial images: the planner refuses them)
  int truncates = 0;              // truncate events among the histories' changes
  bool truncate_enabled = false;  // truncate.enabled: applied, else only counted
  size_t max_key_locks = 0;       // 0: the applier's default; small: tables locked instead
  size_t min_rows_alone = 0;      // 0: the writer's default; 1: any batch of new keys alone

  static run_config from_seed(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::initializer_list<int> options) {
      return *(options.begin() + std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng));
    };
    run_config c;
    c.seed = seed;
    c.histories = pick({1, 2, 4, 8, 12, 16});
    c.history.partials = pick({0, 1}) == 1;
    c.history.keys = pick({2, 3, 4, 5});
    c.history.max_length = pick({4, 8, 14});
    c.duplicates = pick({0, 10, 30, 60}) / 100.0;
    c.split_key_changes = pick({0, 1}) == 1;
    c.max_batch = static_cast<size_t>(pick({1, 2, 4, 16, 64, 100000}));
    c.lanes = pick({1, 2, 2});
    c.history.conflicts = pick({0, 1}) == 1;
    c.soft_deletes = pick({0, 0, 1}) == 1;
    if (c.soft_deletes) c.history.partials = false;
    c.truncates = pick({0, 0, 1, 2});
    c.truncate_enabled = pick({0, 1, 1}) == 1;
    c.max_key_locks = static_cast<size_t>(pick({0, 0, 0, 3}));
    c.min_rows_alone = static_cast<size_t>(pick({0, 1}));
    return c;
  }

  std::string describe() const {
    std::ostringstream o;
    o << "seed " << seed << " (replay: SLUICE_PROPERTY_SEED=" << seed << "): " << histories
      << " histories of up to " << history.max_length << " operations over " << history.keys
      << " keys, " << (history.partials ? "with" : "without") << " partial images, duplicates "
      << duplicates << ", key changes as " << (split_key_changes ? "two changes" : "one change")
      << ", batches of up to " << max_batch << ", " << lanes << " lane(s)"
      << (history.conflicts ? ", equal-CSN conflicts" : "")
      << (soft_deletes ? ", soft deletes" : ", hard deletes") << ", " << truncates
      << " truncate(s) " << (truncate_enabled ? "applied" : "counted only")
      << (max_key_locks ? ", tables locked past " + std::to_string(max_key_locks) + " keys" : "")
      << (min_rows_alone ? ", new keys alone from " + std::to_string(min_rows_alone) + " rows"
                         : "");
    return o.str();
  }
};

struct run_totals {
  size_t runs = 0, histories = 0, events = 0, changes = 0, batches = 0, retries = 0;
};

struct lane {
  std::unique_ptr<mdb_test_sink> applier;
  merge_engine merger;
  std::vector<std::vector<change>> batches;
  owner_epoch epoch{0};
  int64_t next = 0;
  int retries = 0;
  std::string error;
};

class property_runner {
 public:
  explicit property_runner(world& w) : _w(w) {}

  // Runs one seed; returns what went wrong (empty: the replica equals the oracle).
  std::string run(uint64_t seed, run_totals& totals) {
    const run_config cfg = run_config::from_seed(seed);
    std::mt19937_64 rng(seed ^ 0x5eed5eedull);
    const std::string table_name = "run_" + std::to_string(++_runs);
    table_entry* table = _w.table(table_name);

    // Histories over disjoint key ranges.
    std::vector<source_event> events;
    std::vector<size_t> history_of;
    int64_t top_seq = 1;
    for (int h = 0; h < cfg.histories; ++h) {
      top_seq = std::max(top_seq, generate_history(rng, cfg.history, int64_t{h} * 10, events));
      history_of.resize(events.size(), static_cast<size_t>(h));
    }
    // Truncates of the whole table, at CSNs among the histories' (of every history at once).
    constexpr size_t every_history = static_cast<size_t>(-1);
    for (int t = 0; t < cfg.truncates; ++t) {
      source_event e;
      e.what = source_event::kind::truncate;
      e.seq = std::uniform_int_distribution<int64_t>(1, top_seq)(rng);
      events.push_back(e);
      history_of.push_back(every_history);
    }

    // Changes, duplicated and shuffled, then split into batches on random lanes.
    std::vector<std::pair<change, size_t>> sent;
    for (size_t i = 0; i < events.size(); ++i) {
      std::vector<change> made;
      append_changes(events[i], table, cfg.split_key_changes, made);
      for (change& c : made) {
        int copies = 1;
        if (std::uniform_real_distribution<double>(0, 1)(rng) < cfg.duplicates) {
          copies += std::uniform_int_distribution<int>(1, 2)(rng);
        }
        for (int k = 0; k < copies; ++k)
          sent.emplace_back(c, i);
      }
    }
    std::shuffle(sent.begin(), sent.end(), rng);

    std::vector<lane> lanes(static_cast<size_t>(cfg.lanes));
    std::vector<std::string> layout(events.size());  // where each event's changes went
    for (size_t at = 0; at < sent.size();) {
      const size_t size =
          std::min(sent.size() - at, std::uniform_int_distribution<size_t>(1, cfg.max_batch)(rng));
      const size_t l = std::uniform_int_distribution<size_t>(0, lanes.size() - 1)(rng);
      lanes[l].batches.emplace_back();
      for (size_t k = at; k < at + size; ++k) {
        lanes[l].batches.back().push_back(sent[k].first);
        layout[sent[k].second] += " " + std::string(1, static_cast<char>('A' + l)) +
                                  std::to_string(lanes[l].batches.size() - 1);
      }
      at += size;
    }

    const std::string topic = "prop." + table_name;
    apply_options opts = _w.options();
    opts.deletes = cfg.soft_deletes ? apply_delete_mode::soft : apply_delete_mode::hard;
    opts.truncate_enabled = cfg.truncate_enabled;
    opts.max_key_locks = cfg.max_key_locks;
    opts.min_rows_alone = cfg.min_rows_alone;
    for (size_t l = 0; l < lanes.size(); ++l) {
      lanes[l].applier = std::make_unique<mdb_test_sink>(_w.dsn, opts, mdb_test_policy(20),
                                                         "prop_lane_" + std::to_string(l));
    }

    auto apply_lane = [&](size_t l) {
      lane& ln = lanes[l];
      try {
        const partition_id partition(static_cast<int32_t>(l));
        const auto claimed = ln.applier->claim(topic, {partition});
        ln.epoch = claimed.at(0).epoch;
        for (std::vector<change>& batch : ln.batches) {
          const int64_t expected = ln.next == 0 ? -1 : ln.next;
          const int64_t next = ln.next + static_cast<int64_t>(batch.size());
          const merged_batch merged = ln.merger.merge(std::move(batch));
          const apply_stats s = ln.applier->apply(
              merged, {},
              {{topic, partition, ln.epoch, kafka_offset(expected), kafka_offset(next)}});
          ln.retries += s.attempts - 1;
          ln.next = next;
        }
      } catch (const std::exception& e) {
        ln.error = "lane " + std::string(1, static_cast<char>('A' + l)) + ": " + typeid(e).name() +
                   ": " + e.what() + " (last error: " + ln.applier->last_error().message + ")";
      }
    };
    std::vector<std::thread> threads;
    for (size_t l = 0; l < lanes.size(); ++l)
      threads.emplace_back(apply_lane, l);
    for (std::thread& t : threads)
      t.join();

    ++totals.runs;
    totals.histories += static_cast<size_t>(cfg.histories);
    totals.events += events.size();
    totals.changes += sent.size();
    for (const lane& ln : lanes) {
      totals.batches += ln.batches.size();
      totals.retries += static_cast<size_t>(ln.retries);
    }

    std::string report;
    for (const lane& ln : lanes) {
      if (!ln.error.empty()) report += "  " + ln.error + "\n";
    }
    const std::map<int64_t, row_texts> expected =
        _w.canonical_expected(expected_state(events, cfg.truncate_enabled), table_name);
    std::vector<std::string> diff = differences(expected, _w.rows(table_name));
    // Soft deletes keep rows marked deleted: never one of a key that must be live. (SPEC §4
    // does not say what a soft-deleted row holds: only the live rows are compared.)
    for (const auto& [key, row] : _w.rows(table_name, /*deleted_only=*/true)) {
      if (!cfg.soft_deletes) {
        diff.push_back("key " + std::to_string(key) + ": marked deleted under hard deletes");
      } else if (expected.count(key)) {
        diff.push_back("key " + std::to_string(key) + ": expected " + describe(expected.at(key)) +
                       ", got a soft-deleted row");
      }
    }
    std::set<size_t> bad_histories;
    for (size_t i = 0; i < diff.size() && i < 8; ++i) {
      report += "  " + diff[i] + "\n";
      const int64_t key = std::stoll(diff[i].substr(4));
      bad_histories.insert(static_cast<size_t>(key / 10));
    }
    if (diff.size() > 8) report += "  … " + std::to_string(diff.size() - 8) + " more keys\n";
    for (size_t h : bad_histories) {
      report += "  history " + std::to_string(h) + " (event: where its changes went):\n";
      for (size_t i = 0; i < events.size(); ++i) {
        if (history_of[i] == h || history_of[i] == every_history) {
          report += "    " + describe(events[i]) + " @" + layout[i] + "\n";
        }
      }
    }
    // Offsets: every lane's partition ends at the count of changes it applied.
    if (report.empty()) {
      mdb_test_sink reader(_w.dsn, opts);
      size_t seen = 0;
      for (const stored_offset& o : reader.read_offsets()) {
        if (o.topic != topic) continue;
        ++seen;
        const lane& ln = lanes.at(static_cast<size_t>(o.partition.value()));
        if ((ln.next == 0 && o.next) || (ln.next > 0 && (!o.next || o.next->value() != ln.next))) {
          report += "  partition " + std::to_string(o.partition.value()) + " offset " +
                    (o.next ? std::to_string(o.next->value()) : "none") + ", expected " +
                    std::to_string(ln.next) + "\n";
        }
      }
      if (seen != lanes.size()) {
        report += "  " + std::to_string(seen) + " offsets rows for " +
                  std::to_string(lanes.size()) + " claimed partitions\n";
      }
    }
    if (report.empty()) return {};
    return cfg.describe() + "\n" + report;
  }

 private:
  world& _w;
  int _runs = 0;
};

TEST_CASE(
    "mariadb random histories, applied in any order, duplication and batch split by one or two "
    "racing appliers, leave exactly the state SPEC §4 defines") {
  world w;
  property_runner runner(w);
  run_totals totals;
  const auto started = clock_type::now();

  if (const auto replay = env_number("SLUICE_PROPERTY_SEED")) {
    const std::string failure = runner.run(*replay, totals);
    CHECK_MESSAGE(failure.empty(), failure);
    return;
  }
  uint64_t master = env_number("SLUICE_PROPERTY_MASTER_SEED").value_or(std::random_device{}());
  MESSAGE("master seed " << master << " (SLUICE_PROPERTY_MASTER_SEED replays the whole test)");
  const size_t target = env_number("SLUICE_PROPERTY_HISTORIES").value_or(150);
  const auto budget = std::chrono::seconds(env_number("SLUICE_PROPERTY_SECONDS").value_or(60));
  int failures = 0;
  // A run is not cut short: none starts that the longest so far would carry past the budget.
  clock_type::duration longest{0};
  while (totals.histories < target && failures < 3 &&
         (totals.runs == 0 || clock_type::now() - started + longest < budget)) {
    const uint64_t seed = splitmix(master);
    const auto run_started = clock_type::now();
    const std::string failure = runner.run(seed, totals);
    longest = std::max(longest, clock_type::now() - run_started);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  const double seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  MESSAGE(totals.runs << " runs, " << totals.histories << " histories, " << totals.events
                      << " source events, " << totals.changes << " changes in " << totals.batches
                      << " batches, " << totals.retries << " retried transactions, in " << seconds
                      << " s");
}

// ---------------------------------------------------------------------------------------------
// Named regressions
// ---------------------------------------------------------------------------------------------

change upsert(table_entry* t, int64_t id, int64_t csn_n, image img, bool partial = false) {
  change c;
  c.op = op_kind::upsert;
  c.table = t;
  c.key = make_row_key({"id"}, {value::number(std::to_string(id))}).value();
  img.insert(img.begin(), column_value{"id", value::number(std::to_string(id))});
  c.after = std::move(img);
  c.partial = partial;
  c.seq = seq(csn_n);
  return c;
}

change remove(table_entry* t, int64_t id, int64_t csn_n) {
  change c;
  c.op = op_kind::remove;
  c.table = t;
  c.key = make_row_key({"id"}, {value::number(std::to_string(id))}).value();
  c.seq = seq(csn_n);
  return c;
}

change truncate(table_entry* t, int64_t csn_n) {
  change c;
  c.op = op_kind::truncate;
  c.table = t;
  c.seq = seq(csn_n);
  return c;
}

change move_key(table_entry* t, int64_t from, int64_t to, int64_t csn_n, image img) {
  change c = upsert(t, to, csn_n, std::move(img));
  c.old_key = make_row_key({"id"}, {value::number(std::to_string(from))}).value();
  return c;
}

image ab(const std::string& a, const std::string& b) {
  return {{"a", value::number(a)}, {"b", value::string(b)}};
}

TEST_CASE("mariadb insert, delete and re-insert of one key in one batch keep only the last image") {
  world w;
  mdb_test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  applier.apply(w.merger.merge(
      {upsert(t, 1, 1, ab("1", "one")), remove(t, 1, 2), upsert(t, 1, 3, ab("3", "three"))}));
  CHECK(w.ab_of("orders", 1) == "3,three");
  // The delete stays recorded: a late copy of the first insert does not come back.
  applier.apply(w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}));
  CHECK(w.ab_of("orders", 1) == "3,three");
  CHECK(w.one("SELECT HEX(csn) FROM " + mdb::quote_identifier(w.state) +
              ".tombstones WHERE `key` <> ''") == seq(2).hex());
  // With a partial re-insert, a column last set before the delete reads NULL.
  applier.apply(w.merger.merge({upsert(t, 2, 1, ab("1", "one")), remove(t, 2, 2),
                                upsert(t, 2, 3, {{"a", value::number("3")}}, /*partial=*/true)}));
  CHECK(w.ab_of("orders", 2) == "3,-");
  // Insert then delete in one batch: no row, and the late insert stays out.
  applier.apply(w.merger.merge({upsert(t, 3, 1, ab("1", "x")), remove(t, 3, 2)}));
  applier.apply(w.merger.merge({upsert(t, 3, 1, ab("1", "x"))}));
  CHECK(w.ab_of("orders", 3) == "no row");
}

TEST_CASE(
    "mariadb different images of one key at one CSN end the same in one batch or many, any "
    "order") {
  // Per column, a value over NULL, then the greater text: a = 7 (over 5 and NULL), b = z.
  const std::vector<image> images = {
      ab("5", "x"), ab("7", "w"), {{"a", value::null()}, {"b", value::string("z")}}};
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  world w;
  mdb_test_sink applier(w.dsn, w.options());
  int n = 0;
  for (bool versioned : {false, true}) {
    for (const std::vector<int>& order : orders) {
      for (bool one_batch : {true, false}) {
        CAPTURE(versioned);
        CAPTURE(one_batch);
        CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
        const std::string orders_table = "orders_" + std::to_string(++n);
        table_entry* t = w.table(orders_table);
        // A partial image of another key makes the table keep per-column CSNs.
        applier.apply(w.merger.merge({upsert(t, 9, 1, ab("1", "one"), versioned)}));
        std::vector<change> batch;
        for (int i : order) {
          change c = upsert(t, 1, 3, images[static_cast<size_t>(i)]);
          if (one_batch) {
            batch.push_back(std::move(c));
          } else {
            applier.apply(w.merger.merge({std::move(c)}));
          }
        }
        if (one_batch) applier.apply(w.merger.merge(std::move(batch)));
        CHECK(w.ab_of(orders_table, 1) == "7,z");
        // A newer image still replaces every column.
        applier.apply(w.merger.merge({upsert(t, 1, 4, ab("1", "a"))}));
        CHECK(w.ab_of(orders_table, 1) == "1,a");
      }
    }
  }
}

TEST_CASE(
    "mariadb a delete and an upsert at one CSN: the upsert wins column by column, any order") {
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  world w;
  mdb_test_sink applier(w.dsn, w.options());
  int n = 0;
  for (const std::vector<int>& order : orders) {
    CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
    const std::string orders_table = "orders_" + std::to_string(++n);
    table_entry* t = w.table(orders_table);
    image six = ab("6", "six");
    six.push_back({"c", value::string("six")});
    applier.apply(w.merger.merge({upsert(t, 2, 1, six)}));  // column c exists
    // A partial image at 7; at 6 the key is vacated and re-taken (pk = pk + 1).
    const std::vector<change> changes = {upsert(t, 1, 7, ab("7", "seven"), /*partial=*/true),
                                         remove(t, 1, 6), upsert(t, 1, 6, six)};
    for (int i : order)
      applier.apply(w.merger.merge({changes[static_cast<size_t>(i)]}));
    CHECK(w.ab_of(orders_table, 1, 3) == "7,seven,six");
  }
}

TEST_CASE("mariadb a delete then a late older partial image: no row, nor a column from before") {
  world w;
  mdb_test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  applier.apply(w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}));
  applier.apply(w.merger.merge({remove(t, 1, 10)}));
  // Older than the delete, partial: the row does not come back, not even with one column.
  const apply_stats late = applier.apply(
      w.merger.merge({upsert(t, 1, 8, {{"b", value::string("eight")}}, /*partial=*/true)}));
  CHECK(late.upserted == 0);
  CHECK(w.ab_of("orders", 1) == "no row");
  // Newer, partial: a row with that column alone.
  applier.apply(w.merger.merge({upsert(t, 1, 12, {{"a", value::number("12")}}, true)}));
  CHECK(w.ab_of("orders", 1) == "12,-");
  // A late full image older than the delete fills nothing; one between them neither (its b
  // is newer than the delete, but its a older than the partial's): only b.
  applier.apply(w.merger.merge({upsert(t, 1, 9, ab("9", "nine"))}));
  CHECK(w.ab_of("orders", 1) == "12,-");
  applier.apply(w.merger.merge({upsert(t, 1, 11, ab("11", "eleven"))}));
  CHECK(w.ab_of("orders", 1) == "12,eleven");
  // The same in the other order, in one batch: the partial and the older full image.
  applier.apply(w.merger.merge({remove(t, 2, 10)}));
  applier.apply(w.merger.merge(
      {upsert(t, 2, 9, ab("9", "nine")), upsert(t, 2, 12, {{"a", value::number("12")}}, true)}));
  CHECK(w.ab_of("orders", 2) == "12,-");
}

TEST_CASE("mariadb a truncate then a late older upsert: the row stays out, newer ones land") {
  world w;
  apply_options o = w.options();
  o.truncate_enabled = true;
  mdb_test_sink applier(w.dsn, o);
  for (bool versioned : {false, true}) {
    CAPTURE(versioned);
    const std::string orders_table = versioned ? "versioned" : "plain";
    table_entry* t = w.table(orders_table);
    applier.apply(
        w.merger.merge({upsert(t, 1, 10, ab("10", "ten")), upsert(t, 2, 60, ab("60", "sixty")),
                        upsert(t, 3, 70, {{"a", value::number("70")}}, versioned)}));
    const apply_stats s = applier.apply(w.merger.merge({truncate(t, 50)}));
    CHECK(s.truncates_applied == 1);
    CHECK(s.deleted == 1);
    // Older than the truncate: neither a new key nor an old one comes back, even partially.
    applier.apply(w.merger.merge({upsert(t, 4, 40, ab("40", "forty")),
                                  upsert(t, 1, 45, {{"b", value::string("late")}}, versioned)}));
    CHECK(w.all_of(orders_table) == "2:60,sixty 3:70,-");
    // Newer ones land; an older image of a surviving row changes nothing.
    applier.apply(
        w.merger.merge({upsert(t, 4, 55, ab("55", "new")), upsert(t, 2, 30, ab("1", "x"))}));
    CHECK(w.all_of(orders_table) == "2:60,sixty 3:70,- 4:55,new");
    // The same truncate again, and an older one, delete nothing more.
    CHECK(applier.apply(w.merger.merge({truncate(t, 50), truncate(t, 20)})).deleted == 0);
    CHECK(w.all_of(orders_table) == "2:60,sixty 3:70,- 4:55,new");
  }
}

TEST_CASE(
    "mariadb a key change A to B and back leaves A with the last image, any order and split") {
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  world w;
  mdb_test_sink applier(w.dsn, w.options());
  int n = 0;
  for (const std::vector<int>& order : orders) {
    for (bool one_batch : {true, false}) {
      CAPTURE(one_batch);
      CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
      const std::string orders_table = "orders_" + std::to_string(++n);
      table_entry* t = w.table(orders_table);
      const std::vector<change> changes = {upsert(t, 1, 1, ab("1", "first")),
                                           move_key(t, 1, 2, 2, ab("2", "moved")),
                                           move_key(t, 2, 1, 3, ab("3", "back"))};
      if (one_batch) {
        std::vector<change> batch;
        for (int i : order)
          batch.push_back(changes[static_cast<size_t>(i)]);
        applier.apply(w.merger.merge(std::move(batch)));
      } else {
        for (int i : order)
          applier.apply(w.merger.merge({changes[static_cast<size_t>(i)]}));
      }
      CHECK(w.all_of(orders_table) == "1:3,back");
    }
  }
}

TEST_CASE(
    "mariadb a lane whose cached shape predates another lane's per-column CSNs still merges "
    "columns") {
  world w;
  table_entry* t = w.table("orders");
  mdb_test_sink a(w.dsn, w.options()), b(w.dsn, w.options());
  // b creates the table from full images and caches it without per-column CSNs.
  b.apply(w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}));
  // a's partial image makes the table keep per-column CSNs; its row 2 has only a, at CSN 5.
  a.apply(w.merger.merge({upsert(t, 2, 5, {{"a", value::number("5")}}, true)}));
  // b's older full image of row 2 must still fill b (never set) and leave a (newer) alone.
  b.apply(w.merger.merge({upsert(t, 2, 4, ab("4", "four"))}));
  CHECK(w.ab_of("orders", 2) == "5,four");
  // And a later partial older than b's full image does not overwrite it.
  a.apply(w.merger.merge({upsert(t, 2, 3, {{"b", value::string("three")}}, true)}));
  CHECK(w.ab_of("orders", 2) == "5,four");
}

TEST_CASE("mariadb a lane that saw no table deletes from the table another lane created since") {
  world w;
  table_entry* t = w.table("orders");
  mdb_test_sink a(w.dsn, w.options()), b(w.dsn, w.options());
  // b's first batch only deletes, from a table that does not exist yet: tombstones only.
  b.apply(w.merger.merge({remove(t, 1, 5)}));
  a.apply(w.merger.merge({upsert(t, 2, 1, ab("1", "one")), upsert(t, 3, 9, ab("9", "nine"))}));
  b.apply(w.merger.merge({remove(t, 2, 5), remove(t, 3, 5)}));
  CHECK(w.all_of("orders") == "3:9,nine");
}

TEST_CASE("mariadb many new keys into a table without tombstones lock the table, not their keys") {
  world w;
  apply_options options = w.options();
  options.min_rows_alone = 3;
  mdb_test_sink applier(w.dsn, options);
  table_entry* t = w.table("orders");
  const auto batch = [&](int64_t from, int64_t to) {
    std::vector<change> changes;
    for (int64_t id = from; id <= to; ++id)
      changes.push_back(upsert(t, id, 1, ab(std::to_string(id), "new")));
    return w.merger.merge(std::move(changes));
  };
  const auto key_locks = [&] {
    return w.one("SELECT count(*) FROM " + mdb::quote_identifier(w.state) + ".key_locks");
  };
  // The first batch locks its keys: the table's upserts have not gone straight in yet.
  applier.apply(batch(1, 3));
  REQUIRE(key_locks() == "3");
  // They did: the next batch of new keys takes the table alone, no key_locks row.
  applier.apply(batch(4, 6));
  CHECK(key_locks() == "3");
  // Fewer rows than min_rows_alone lock their keys.
  applier.apply(batch(7, 8));
  CHECK(key_locks() == "5");

  // Alone means exclusively: another writer of the table (its table_locks row held in share
  // mode, as a batch of other keys holds it) keeps the batch waiting until it commits.
  mdb::connection other(world::settings());
  other.exec("START TRANSACTION");
  other.query("SELECT 1 FROM " + mdb::quote_identifier(w.state) +
              ".table_locks WHERE target_table = 'orders' LOCK IN SHARE MODE");
  std::exception_ptr failed;
  std::thread lane([&] {
    try {
      applier.apply(batch(9, 11));
    } catch (...) {
      failed = std::current_exception();
    }
  });
  const auto waiting = [&] {
    return w.one(
               "SELECT count(*) FROM information_schema.processlist WHERE info LIKE "
               "'%table_locks%FOR UPDATE'") == "1";
  };
  bool waited = false;
  for (int i = 0; i < 500 && !waited; ++i) {  // 10 s: an ASan build on a busy machine
    waited = waiting();
    if (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(w.one("SELECT count(*) FROM " + w.target("orders") + " WHERE id >= 9") == "0");
  other.exec("COMMIT");
  lane.join();
  CHECK(waited);
  CHECK(!failed);
  CHECK(w.one("SELECT count(*) FROM " + w.target("orders")) == "11");
  CHECK(key_locks() == "5");

  // A batch with a delete locks its keys, and so does the next batch of new keys: the table
  // has a tombstone now, its upserts take the guarded path.
  applier.apply(
      w.merger.merge({upsert(t, 12, 1, ab("12", "new")), remove(t, 1, 2),
                      upsert(t, 13, 1, ab("13", "new")), upsert(t, 14, 1, ab("14", "new"))}));
  CHECK(key_locks() == "8");  // 12, 13, 14; 1's row was there
  applier.apply(batch(15, 17));
  CHECK(key_locks() == "11");
  // A late copy of 1's insert stays out.
  applier.apply(w.merger.merge({upsert(t, 1, 1, ab("1", "new"))}));
  CHECK(w.one("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 1") == "0");
}

}  // namespace
}  // namespace sluice
