// Property and fault tests of the apply path (merge_engine, then test_sink::apply) against a
// real PostgreSQL (CTest label "integration"): random change histories, applied in any order,
// any number of times, in any batch split, by one or two concurrent appliers, through broken
// connections and lost COMMIT answers, with hard or soft deletes, truncates applied or only
// counted, and now and then two different images of a key at one CSN, must leave exactly the
// state SPEC §4 defines (expected_state in apply_history.h). Then named regressions of the
// same kind.
//
// The server's DSN comes from SLUICE_TEST_PG_DSN, else from $SLUICE_RUN_DIR/postgres.dsn.
// A failing run prints its seed; SLUICE_PROPERTY_SEED=<seed> replays that run alone, and
// SLUICE_PROPERTY_HISTORIES=<n> changes how many histories a full run covers (default 1200).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "tests/sinks/apply_history.h"
#include "tests/sinks/pg_fault_proxy.h"
#include "tests/sinks/pg_test_env.h"
#include "tests/sinks/test_sink.h"

namespace doctest {
template <>
struct StringMaker<std::optional<std::string>> {
  static String convert(const std::optional<std::string>& v) {
    return v ? String(("\"" + *v + "\"").c_str()) : String("NULL");
  }
};
}  // namespace doctest

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;

using testing::test_dsn;
using testing::unique_name;
using testing::with_application_name;

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

// One test's world: a schema for the replica tables (the source schema routes to the target
// schema of the same name), a state schema, a catalog, and a connection for looking.
struct world {
  std::string dsn = test_dsn();
  std::string schema = unique_name("prop");
  std::string state = unique_name("prop_state");
  table_catalog catalog;
  merge_engine merger;
  pqxx::connection look{dsn};

  world() {
    pqxx::work tx(look);
    tx.exec("SET client_min_messages TO warning");
    tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(schema) + " CASCADE");
    tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(state) + " CASCADE");
    tx.commit();
  }
  ~world() {
    try {
      pqxx::work tx(look);
      tx.exec("SET client_min_messages TO warning");
      tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(schema) + " CASCADE");
      tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(state) + " CASCADE");
      tx.commit();
    } catch (...) {
    }
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
    return "\"" + schema + "\".\"" + table + "\"";
  }

  // The replica table's rows as the oracle's texts; columns not (yet) created read NULL. Rows
  // soft-deleted (delete.mode: soft) are left out, or, with deleted_only, the only ones read.
  std::map<int64_t, row_texts> rows(const std::string& table, bool deleted_only = false) {
    pqxx::work tx(look);
    std::set<std::string> have;
    for (const pqxx::row& r : tx.exec_params("SELECT column_name FROM information_schema.columns "
                                             "WHERE table_schema = $1 AND table_name = $2",
                                             schema, table)) {
      have.insert(r[0].as<std::string>());
    }
    std::map<int64_t, row_texts> out;
    if (have.empty()) return out;
    std::string select = "SELECT id::text";
    for (const char* c : history_columns)
      select += have.count(c) ? std::string(", ") + c + "::text" : std::string(", NULL::text");
    std::string where;
    if (have.count("_sluice_deleted")) {
      where = deleted_only ? " WHERE _sluice_deleted" : " WHERE NOT _sluice_deleted";
    } else if (deleted_only) {
      return out;
    }
    for (const pqxx::row& r : tx.exec(select + " FROM " + target(table) + where)) {
      row_texts row;
      for (size_t c = 0; c < row.size(); ++c) {
        const pqxx::field f = r[static_cast<pqxx::row::size_type>(c + 1)];
        if (!f.is_null()) row[c] = f.as<std::string>();
      }
      out.emplace(std::stoll(r[0].as<std::string>()), std::move(row));
    }
    return out;
  }

  std::optional<std::string> one(const std::string& sql) {
    pqxx::work tx(look);
    const pqxx::result r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return std::nullopt;
    return r[0][0].as<std::string>();
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql).value_or("0")); }

  // Terminates the backends of an application name; returns how many.
  size_t terminate(const std::string& app) {
    pqxx::work tx(look);
    const pqxx::result r = tx.exec_params(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app);
    tx.commit();
    return r.size();
  }
};

// The one place a test calls apply, so that a change of its parameters is one edit here.
apply_stats apply_batch(test_sink& applier, const merged_batch& batch,
                        const std::vector<partition_progress>& progress = {},
                        const std::vector<dead_letter>& dead_letters = {}) {
  return applier.apply(batch, dead_letters, progress);
}

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
// duplicated and split into batches that one applier, or two racing ones, apply — with
// progress through their own partitions, and in faulty runs through a proxy that loses
// COMMITs while a chaos thread also kills backends.
struct run_config {
  uint64_t seed = 0;
  int histories = 0;
  history_options history;
  double duplicates = 0;  // chance that a change is sent again (once or twice more)
  bool split_key_changes = false;
  size_t max_batch = 1;
  int lanes = 1;
  bool faulty = false;
  apply_bulk_path bulk_path = apply_bulk_path::copy;
  bool soft_deletes = false;      // delete.mode: soft (no partial images: the planner refuses them)
  int truncates = 0;              // truncate events among the histories' changes
  bool truncate_enabled = false;  // truncate.enabled: applied, else only counted

  static run_config from_seed(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::initializer_list<int> options) {
      return *(options.begin() + std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng));
    };
    run_config c;
    c.seed = seed;
    c.histories = pick({1, 2, 4, 8, 16, 24, 32});
    c.history.partials = pick({0, 1}) == 1;
    c.history.keys = pick({2, 3, 4, 5});
    c.history.max_length = pick({4, 8, 14});
    c.duplicates = pick({0, 10, 30}) / 100.0;
    c.split_key_changes = pick({0, 1}) == 1;
    c.max_batch = static_cast<size_t>(pick({1, 2, 4, 16, 64, 100000}));
    c.lanes = pick({1, 2, 2});
    c.faulty = pick({0, 0, 0, 1}) == 1;
    c.bulk_path = pick({0, 1}) == 1 ? apply_bulk_path::unnest : apply_bulk_path::copy;
    c.history.conflicts = pick({0, 1}) == 1;
    c.soft_deletes = pick({0, 0, 1}) == 1;
    if (c.soft_deletes) c.history.partials = false;
    c.truncates = pick({0, 0, 1, 2});
    c.truncate_enabled = pick({0, 1, 1}) == 1;
    return c;
  }

  std::string describe() const {
    std::ostringstream o;
    o << "seed " << seed << " (replay: SLUICE_PROPERTY_SEED=" << seed << "): " << histories
      << " histories of up to " << history.max_length << " operations over " << history.keys
      << " keys, " << (history.partials ? "with" : "without") << " partial images, duplicates "
      << duplicates << ", key changes as " << (split_key_changes ? "two changes" : "one change")
      << ", batches of up to " << max_batch << ", " << lanes << " lane(s), rows by "
      << (bulk_path == apply_bulk_path::copy ? "COPY" : "unnest")
      << (history.conflicts ? ", equal-CSN conflicts" : "")
      << (soft_deletes ? ", soft deletes" : ", hard deletes") << ", " << truncates
      << " truncate(s) " << (truncate_enabled ? "applied" : "counted only")
      << (faulty ? ", faults injected" : "");
    return o.str();
  }
};

struct run_totals {
  size_t runs = 0, histories = 0, events = 0, changes = 0, batches = 0, retries = 0;
  size_t faults = 0;
};

struct lane {
  std::string app;
  std::unique_ptr<test_sink> applier;
  merge_engine merger;
  std::vector<std::vector<change>> batches;
  std::vector<std::vector<size_t>> batch_events;  // event index of each change, per batch
  owner_epoch epoch{0};
  int64_t next = 0;
  int retries = 0;
  std::string error;
};

class property_runner {
 public:
  property_runner(world& w, pg_fault_proxy& proxy) : _w(w), _proxy(proxy) {}

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
    for (size_t at = 0, b = 0; at < sent.size(); ++b) {
      const size_t size =
          std::min(sent.size() - at, std::uniform_int_distribution<size_t>(1, cfg.max_batch)(rng));
      const size_t l = std::uniform_int_distribution<size_t>(0, lanes.size() - 1)(rng);
      lanes[l].batches.emplace_back();
      lanes[l].batch_events.emplace_back();
      for (size_t k = at; k < at + size; ++k) {
        lanes[l].batches.back().push_back(sent[k].first);
        lanes[l].batch_events.back().push_back(sent[k].second);
        layout[sent[k].second] += " " + std::string(1, static_cast<char>('A' + l)) +
                                  std::to_string(lanes[l].batches.size() - 1);
      }
      at += size;
    }

    const std::string topic = "prop." + table_name;
    apply_options opts = _w.options();
    opts.bulk_path = cfg.bulk_path;
    opts.deletes = cfg.soft_deletes ? apply_delete_mode::soft : apply_delete_mode::hard;
    opts.truncate_enabled = cfg.truncate_enabled;
    const retry_policy policy =
        cfg.faulty ? test_policy(100, std::chrono::milliseconds(20)) : test_policy();
    for (size_t l = 0; l < lanes.size(); ++l) {
      lane& ln = lanes[l];
      ln.app = unique_name("prop_lane");
      const std::string dsn = cfg.faulty ? _proxy.with_proxy(_w.dsn) : _w.dsn;
      ln.applier = std::make_unique<test_sink>(with_application_name(dsn, ln.app), opts, policy);
    }

    std::atomic<bool> done{false};
    const int faults_before = _proxy.faults_injected();
    auto apply_lane = [&](size_t l) {
      lane& ln = lanes[l];
      try {
        const auto claimed = ln.applier->claim(topic, {partition_id(static_cast<int32_t>(l))});
        ln.epoch = claimed.at(0).epoch;
        for (std::vector<change>& batch : ln.batches) {
          const int64_t expected = ln.next == 0 ? -1 : ln.next;
          const int64_t next = ln.next + static_cast<int64_t>(batch.size());
          const merged_batch merged = ln.merger.merge(std::move(batch));
          const apply_stats s =
              apply_batch(*ln.applier, merged,
                          {{topic, partition_id(static_cast<int32_t>(l)), ln.epoch,
                            kafka_offset(expected), kafka_offset(next)}});
          ln.retries += s.attempts - 1;
          ln.next = next;
        }
      } catch (const std::exception& e) {
        ln.error = "lane " + std::string(1, static_cast<char>('A' + l)) + ": " + e.what() +
                   " (last error class: " + to_string(ln.applier->last_error().action) + ")";
      }
    };
    // Chaos: lose a COMMIT (before, after or racing it) or kill a lane's backend, every few
    // milliseconds, while the lanes run.
    auto chaos = [&] {
      std::mt19937_64 crng(seed ^ 0xc4a05ull);
      while (!done.load()) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::uniform_int_distribution<int>(5, 50)(crng)));
        const int what = std::uniform_int_distribution<int>(0, 3)(crng);
        if (what < 3) {
          if (!_proxy.armed()) {
            _proxy.arm(what == 0   ? pg_fault_proxy::fault::before_commit
                       : what == 1 ? pg_fault_proxy::fault::after_commit
                                   : pg_fault_proxy::fault::racing_commit);
          }
        } else {
          try {
            _w.terminate(
                lanes[std::uniform_int_distribution<size_t>(0, lanes.size() - 1)(crng)].app);
          } catch (...) {
          }
        }
      }
      _proxy.arm(pg_fault_proxy::fault::none);
    };

    std::vector<std::thread> threads;
    std::thread chaos_thread;
    if (cfg.faulty) chaos_thread = std::thread(chaos);
    for (size_t l = 0; l < lanes.size(); ++l)
      threads.emplace_back(apply_lane, l);
    for (std::thread& t : threads)
      t.join();
    done.store(true);
    if (chaos_thread.joinable()) chaos_thread.join();

    ++totals.runs;
    totals.histories += static_cast<size_t>(cfg.histories);
    totals.events += events.size();
    totals.changes += sent.size();
    for (const lane& ln : lanes) {
      totals.batches += ln.batches.size();
      totals.retries += static_cast<size_t>(ln.retries);
    }
    totals.faults += static_cast<size_t>(_proxy.faults_injected() - faults_before);

    std::string report;
    for (const lane& ln : lanes) {
      if (!ln.error.empty()) report += "  " + ln.error + "\n";
    }
    const std::map<int64_t, row_texts> expected = expected_state(events, cfg.truncate_enabled);
    std::vector<std::string> diff = differences(expected, _w.rows(table_name));
    // Soft deletes keep rows marked deleted: never one of a key that must be live. (SPEC §4
    // does not say what a soft-deleted row holds, nor whether a delete that arrives before
    // the key's first upsert leaves one: only the live rows are compared with the oracle.)
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
      test_sink reader(_w.dsn, opts);
      for (const stored_offset& o : reader.read_offsets()) {
        if (o.topic != topic) continue;
        const lane& ln = lanes.at(static_cast<size_t>(o.partition.value()));
        if ((ln.next == 0 && o.next) || (ln.next > 0 && (!o.next || o.next->value() != ln.next))) {
          report += "  partition " + std::to_string(o.partition.value()) + " offset " +
                    (o.next ? std::to_string(o.next->value()) : "none") + ", expected " +
                    std::to_string(ln.next) + "\n";
        }
      }
    }
    if (report.empty()) return {};
    return cfg.describe() + "\n" + report;
  }

 private:
  world& _w;
  pg_fault_proxy& _proxy;
  int _runs = 0;
};

std::unique_ptr<pg_fault_proxy> proxy_for(const std::string& dsn) {
  std::string host;
  uint16_t port = 0;
  REQUIRE_MESSAGE(parse_dsn_host_port(dsn, host, port), "need a postgresql:// DSN: " << dsn);
  return std::make_unique<pg_fault_proxy>(host, port);
}

TEST_CASE(
    "random histories, applied in any order, duplication and batch split by one or two "
    "racing appliers through lost connections, leave exactly the state SPEC §4 defines") {
  world w;
  auto proxy = proxy_for(w.dsn);
  property_runner runner(w, *proxy);
  run_totals totals;
  const auto started = clock_type::now();

  if (const auto replay = env_number("SLUICE_PROPERTY_SEED")) {
    const std::string failure = runner.run(*replay, totals);
    CHECK_MESSAGE(failure.empty(), failure);
    return;
  }
  uint64_t master = env_number("SLUICE_PROPERTY_MASTER_SEED").value_or(std::random_device{}());
  MESSAGE("master seed " << master << " (SLUICE_PROPERTY_MASTER_SEED replays the whole test)");
  const size_t target = env_number("SLUICE_PROPERTY_HISTORIES").value_or(1200);
  int failures = 0;
  while (totals.histories < target && failures < 3) {
    const uint64_t seed = splitmix(master);
    const std::string failure = runner.run(seed, totals);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  const double seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  MESSAGE(totals.runs << " runs, " << totals.histories << " histories, " << totals.events
                      << " source events, " << totals.changes << " changes in " << totals.batches
                      << " batches, " << totals.faults << " COMMITs lost, " << totals.retries
                      << " retried transactions, in " << seconds << " s");
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

change move_key(table_entry* t, int64_t from, int64_t to, int64_t csn_n, image img) {
  change c = upsert(t, to, csn_n, std::move(img));
  c.old_key = make_row_key({"id"}, {value::number(std::to_string(from))}).value();
  return c;
}

image ab(const std::string& a, const std::string& b) {
  return {{"a", value::number(a)}, {"b", value::string(b)}};
}

TEST_CASE("insert, delete and re-insert of one key in one batch keep only the last image") {
  world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  apply_batch(applier, w.merger.merge({upsert(t, 1, 1, ab("1", "one")), remove(t, 1, 2),
                                       upsert(t, 1, 3, ab("3", "three"))}));
  CHECK(w.one("SELECT a || ',' || b FROM " + w.target("orders") + " WHERE id = 1") == "3,three");
  // The delete stays recorded: a late copy of the first insert does not come back.
  apply_batch(applier, w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}));
  CHECK(w.one("SELECT a || ',' || b FROM " + w.target("orders") + " WHERE id = 1") == "3,three");
  CHECK(w.one("SELECT encode(csn, 'hex') FROM \"" + w.state + "\".tombstones") == seq(2).hex());

  // With a partial re-insert, a column last set before the delete reads NULL.
  apply_batch(applier,
              w.merger.merge({upsert(t, 2, 1, ab("1", "one")), remove(t, 2, 2),
                              upsert(t, 2, 3, {{"a", value::number("3")}}, /*partial=*/true)}));
  CHECK(w.one("SELECT a || ',' || coalesce(b, '-') FROM " + w.target("orders") + " WHERE id = 2") ==
        "3,-");
  // Insert then delete in one batch: no row, and the late insert stays out.
  apply_batch(applier, w.merger.merge({upsert(t, 3, 1, ab("1", "x")), remove(t, 3, 2)}));
  apply_batch(applier, w.merger.merge({upsert(t, 3, 1, ab("1", "x"))}));
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 3") == 0);
}

TEST_CASE("different images of one key at one CSN end the same in one batch or many, any order") {
  // Per column, a value over NULL, then the greater text: a = 7 (over 5 and NULL), b = z.
  const std::vector<image> images = {
      ab("5", "x"), ab("7", "w"), {{"a", value::null()}, {"b", value::string("z")}}};
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  for (bool versioned : {false, true}) {
    for (const std::vector<int>& order : orders) {
      for (bool one_batch : {true, false}) {
        CAPTURE(versioned);
        CAPTURE(one_batch);
        CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
        world w;
        test_sink applier(w.dsn, w.options());
        table_entry* t = w.table("orders");
        // A partial image of another key makes the table keep per-column CSNs.
        apply_batch(applier, w.merger.merge({upsert(t, 9, 1, ab("1", "one"), versioned)}));
        std::vector<change> batch;
        for (int i : order) {
          change c = upsert(t, 1, 3, images[static_cast<size_t>(i)]);
          if (one_batch) {
            batch.push_back(std::move(c));
          } else {
            apply_batch(applier, w.merger.merge({std::move(c)}));
          }
        }
        if (one_batch) apply_batch(applier, w.merger.merge(std::move(batch)));
        CHECK(w.one("SELECT a || b FROM " + w.target("orders") + " WHERE id = 1") == "7z");
        // A newer image still replaces every column.
        apply_batch(applier, w.merger.merge({upsert(t, 1, 4, ab("1", "a"))}));
        CHECK(w.one("SELECT a || b FROM " + w.target("orders") + " WHERE id = 1") == "1a");
      }
    }
  }
}

TEST_CASE("a key's tombstone is added once, then only ever raised") {
  world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  const std::string tomb =
      "SELECT encode(csn, 'hex') FROM \"" + w.state + "\".tombstones WHERE key <> ''::bytea";
  apply_batch(applier,
              w.merger.merge({upsert(t, 1, 1, ab("1", "one")), upsert(t, 2, 1, ab("1", "two"))}));
  CHECK(apply_batch(applier, w.merger.merge({remove(t, 1, 3)})).tombstones == 1);
  CHECK(w.one(tomb) == seq(3).hex());
  // Newer: raised, in the same batch as a first tombstone of another key.
  CHECK(apply_batch(applier, w.merger.merge({remove(t, 1, 5), remove(t, 2, 4)})).tombstones == 2);
  CHECK(w.one(tomb + " ORDER BY csn DESC LIMIT 1") == seq(5).hex());
  // Older: left as it is.
  CHECK(apply_batch(applier, w.merger.merge({remove(t, 1, 2)})).tombstones == 0);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".tombstones") == 2);
  CHECK(w.one(tomb + " ORDER BY csn DESC LIMIT 1") == seq(5).hex());
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 0);
}

TEST_CASE("a key sent many times in one batch reaches the database once, newest image") {
  world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  std::vector<change> batch;
  for (int round = 0; round < 3; ++round) {
    for (int64_t n : {5, 2, 9, 7}) {
      batch.push_back(upsert(t, 1, n, ab(std::to_string(n), "v" + std::to_string(n))));
      batch.push_back(upsert(t, 2, n, ab(std::to_string(n), "w" + std::to_string(n))));
    }
  }
  batch.push_back(remove(t, 2, 8));
  const apply_stats s = apply_batch(applier, w.merger.merge(std::move(batch)));
  CHECK(s.upserted == 2);
  CHECK(s.attempts == 1);
  CHECK(w.one("SELECT string_agg(id || ':' || a || b, ' ' ORDER BY id) FROM " +
              w.target("orders")) == "1:9v9 2:9w9");
}

TEST_CASE("a key change A to B and back leaves A with the last image, in any order and split") {
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  for (const std::vector<int>& order : orders) {
    for (bool one_batch : {true, false}) {
      CAPTURE(one_batch);
      CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
      world w;
      test_sink applier(w.dsn, w.options());
      table_entry* t = w.table("orders");
      const std::vector<change> changes = {upsert(t, 1, 1, ab("1", "first")),
                                           move_key(t, 1, 2, 2, ab("2", "moved")),
                                           move_key(t, 2, 1, 3, ab("3", "back"))};
      if (one_batch) {
        std::vector<change> batch;
        for (int i : order)
          batch.push_back(changes[static_cast<size_t>(i)]);
        apply_batch(applier, w.merger.merge(std::move(batch)));
      } else {
        for (int i : order)
          apply_batch(applier, w.merger.merge({changes[static_cast<size_t>(i)]}));
      }
      CHECK(w.one("SELECT string_agg(id || ':' || a || b, ' ' ORDER BY id) FROM " +
                  w.target("orders")) == "1:3back");
    }
  }
}

TEST_CASE("an equal-CSN key shift (pk = pk + 1) moves every row, whatever the batches") {
  for (int split = 0; split < 3; ++split) {
    CAPTURE(split);
    world w;
    test_sink applier(w.dsn, w.options());
    table_entry* t = w.table("orders");
    std::vector<change> inserts, shift;
    for (int64_t id = 1; id <= 5; ++id)
      inserts.push_back(upsert(t, id, 1, ab(std::to_string(id), "r" + std::to_string(id))));
    // One statement at CSN 2: row id becomes id + 1, highest first as the source logs it.
    for (int64_t id = 5; id >= 1; --id)
      shift.push_back(move_key(t, id, id + 1, 2, ab(std::to_string(id), "r" + std::to_string(id))));
    if (split == 0) {
      std::vector<change> all = inserts;
      all.insert(all.end(), shift.begin(), shift.end());
      apply_batch(applier, w.merger.merge(std::move(all)));
    } else if (split == 1) {
      apply_batch(applier, w.merger.merge(std::vector<change>(inserts)));
      for (const change& c : shift)
        apply_batch(applier, w.merger.merge({c}));
    } else {
      std::reverse(shift.begin(), shift.end());
      for (const change& c : shift)
        apply_batch(applier, w.merger.merge({c}));
      apply_batch(applier, w.merger.merge(std::vector<change>(inserts)));
    }
    CHECK(w.one("SELECT string_agg(id || ':' || b, ' ' ORDER BY id) FROM " + w.target("orders")) ==
          "2:r1 3:r2 4:r3 5:r4 6:r5");
  }
}

// Run with key locks in both lanes, then with one lane over its key-lock budget (table locked
// exclusively) beside one within it: each pairing must still serialize the writers of a key.
TEST_CASE("two appliers writing the same keys at once neither resurrect a row nor deadlock") {
  size_t budgets[2] = {0, 0};  // 0: the server's default
  SUBCASE("both lanes lock keys") {}
  SUBCASE("one lane locks keys, the other its table") {
    budgets[0] = 50;  // each batch has 200 keys
  }
  world w;
  table_entry* t = w.table("hot");
  {
    test_sink setup(w.dsn, w.options());
    apply_batch(setup, w.merger.merge({upsert(t, 0, 0, ab("0", "seed"))}));
  }
  // Both lanes touch all 200 keys in every batch, one lane's batches newest first, with
  // deletes and upserts interleaved so that every late change meets a newer one.
  std::vector<source_event> events;
  std::vector<std::vector<change>> lanes[2];
  for (int l = 0; l < 2; ++l) {
    for (int round = 0; round < 20; ++round) {
      const int r = l == 0 ? 19 - round : round;
      std::vector<change> batch;
      for (int64_t id = 0; id < 200; ++id) {
        const int64_t n = 2 * r + l + 1;
        source_event e;
        e.key = id;
        e.seq = n;
        if ((id + r) % 5 == 0) {
          e.what = source_event::kind::remove;
        } else {
          e.img = {{"a", value::number(std::to_string(n))},
                   {"b", value::string("l" + std::to_string(l))}};
        }
        append_changes(e, t, false, batch);
        events.push_back(std::move(e));
      }
      if (l == 1) std::reverse(batch.begin(), batch.end());
      lanes[l].push_back(std::move(batch));
    }
  }
  std::string errors[2];
  int retried[2] = {0, 0};
  auto run = [&](int l) {
    try {
      apply_options options = w.options();
      options.max_key_locks = budgets[l];
      test_sink applier(w.dsn, options);
      merge_engine merger;
      for (std::vector<change>& batch : lanes[l]) {
        const apply_stats s = apply_batch(applier, merger.merge(std::move(batch)));
        retried[l] += s.attempts - 1;
      }
    } catch (const std::exception& e) {
      errors[l] = e.what();
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  CHECK(errors[0] == "");
  CHECK(errors[1] == "");
  // Key locks are taken in one order by every writer: nothing to retry, no deadlock.
  CHECK(retried[0] + retried[1] == 0);
  const std::vector<std::string> diff = differences(expected_state(events), w.rows("hot"));
  CHECK_MESSAGE(diff.empty(), (diff.empty() ? std::string() : diff.front()));
}

TEST_CASE("a zombie with a stale epoch writes nothing while the new owner applies") {
  world w;
  table_entry* t = w.table("orders");
  test_sink zombie(w.dsn, w.options()), owner(w.dsn, w.options());
  const auto old_claim = zombie.claim("cdc.orders", {partition_id(0)});
  // The zombie's first batch lands while it still owns the partition.
  apply_batch(
      zombie, w.merger.merge({upsert(t, 1, 1, ab("1", "zombie-first"))}),
      {{"cdc.orders", partition_id(0), old_claim[0].epoch, kafka_offset(-1), kafka_offset(1)}});
  const auto new_claim = owner.claim("cdc.orders", {partition_id(0)});
  REQUIRE(new_claim[0].next);
  CHECK(new_claim[0].next->value() == 1);

  // Both go on at once. The zombie's changes are newer, so any of them landing would show.
  std::atomic<int> zombie_refused{0};
  std::string owner_error;
  std::thread z([&] {
    merge_engine merger;
    int64_t expected = 1;
    for (int i = 0; i < 30; ++i) {
      dead_letter dl;
      dl.reason = "zombie";
      const apply_result r = zombie.try_apply(
          merger.merge({upsert(t, 1 + i % 3, 1000 + i, ab("9", "zombie")), remove(t, 4, 1000 + i)}),
          {dl},
          {{"cdc.orders", partition_id(0), old_claim[0].epoch, kafka_offset(expected),
            kafka_offset(expected + 2)}});
      if (r.outcome == apply_outcome::stale) ++zombie_refused;
    }
  });
  std::thread o([&] {
    try {
      merge_engine merger;
      int64_t next = 1;
      for (int i = 0; i < 30; ++i) {
        apply_batch(owner,
                    merger.merge({upsert(t, 1 + i % 3, 10 + i, ab(std::to_string(i), "owner")),
                                  upsert(t, 4, 10 + i, ab(std::to_string(i), "owner"))}),
                    {{"cdc.orders", partition_id(0), new_claim[0].epoch, kafka_offset(next),
                      kafka_offset(next + 2)}});
        next += 2;
      }
    } catch (const std::exception& e) {
      owner_error = e.what();
    }
  });
  z.join();
  o.join();
  CHECK(owner_error == "");
  CHECK(zombie_refused.load() == 30);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE b = 'zombie'") == 0);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 4);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters") == 0);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".tombstones") == 0);
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "61");
}

TEST_CASE(
    "a lane whose cached shape predates another lane's per-column CSNs still merges columns") {
  world w;
  table_entry* t = w.table("orders");
  test_sink a(w.dsn, w.options()), b(w.dsn, w.options());
  // b creates the table from full images and caches it without per-column CSNs.
  apply_batch(b, w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}));
  // a's partial image makes the table keep per-column CSNs; its row 2 has only a, at CSN 5.
  apply_batch(a, w.merger.merge({upsert(t, 2, 5, {{"a", value::number("5")}}, true)}));
  // b's older full image of row 2 must still fill b (never set) and leave a (newer) alone.
  apply_batch(b, w.merger.merge({upsert(t, 2, 4, ab("4", "four"))}));
  CHECK(w.one("SELECT a || ',' || coalesce(b, '-') FROM " + w.target("orders") + " WHERE id = 2") ==
        "5,four");
  // And a later partial older than b's full image does not overwrite it.
  apply_batch(a, w.merger.merge({upsert(t, 2, 3, {{"b", value::string("three")}}, true)}));
  CHECK(w.one("SELECT a || ',' || coalesce(b, '-') FROM " + w.target("orders") + " WHERE id = 2") ==
        "5,four");
}

TEST_CASE("a lane that saw no table deletes from the table another lane created since") {
  world w;
  table_entry* t = w.table("orders");
  test_sink a(w.dsn, w.options()), b(w.dsn, w.options());
  // b's first batch only deletes, from a table that does not exist yet: tombstones only.
  apply_batch(b, w.merger.merge({remove(t, 1, 5)}));
  apply_batch(a,
              w.merger.merge({upsert(t, 2, 1, ab("1", "one")), upsert(t, 3, 9, ab("9", "nine"))}));
  apply_batch(b, w.merger.merge({remove(t, 2, 5), remove(t, 3, 5)}));
  CHECK(w.one("SELECT string_agg(id || ':' || a || b, ' ' ORDER BY id) FROM " +
              w.target("orders")) == "3:9nine");
}

TEST_CASE("a column a tombstone nulls on insert stays at the tombstone for later images") {
  world w;
  test_sink applier(w.dsn, w.options());
  table_entry* t = w.table("orders");
  // The table keeps per-column CSNs; key 1 is deleted at 10.
  apply_batch(applier, w.merger.merge({upsert(t, 9, 1, {{"a", value::number("1")}}, true)}));
  apply_batch(applier, w.merger.merge({remove(t, 1, 10)}));
  // One batch: a partial image at 12 and a full one at 8. b was set at 8, before the delete.
  apply_batch(applier, w.merger.merge({upsert(t, 1, 12, {{"a", value::number("12")}}, true),
                                       upsert(t, 1, 8, ab("8", "eight"))}));
  CHECK(w.one("SELECT a || ',' || coalesce(b, '-') FROM " + w.target("orders") + " WHERE id = 1") ==
        "12,-");
  // A late full image at 9, with a newer partial one, is still older than the delete for b.
  apply_batch(applier, w.merger.merge({upsert(t, 1, 11, {{"a", value::number("11")}}, true),
                                       upsert(t, 1, 9, ab("9", "nine"))}));
  CHECK(w.one("SELECT a || ',' || coalesce(b, '-') FROM " + w.target("orders") + " WHERE id = 1") ==
        "12,-");
}

TEST_CASE("a delete and an upsert at one CSN: the upsert wins column by column, in any order") {
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const std::vector<int>& order : orders) {
    CAPTURE(order[0] * 100 + order[1] * 10 + order[2]);
    world w;
    test_sink applier(w.dsn, w.options());
    table_entry* t = w.table("orders");
    image six = ab("6", "six");
    six.push_back({"c", value::string("six")});
    apply_batch(applier, w.merger.merge({upsert(t, 2, 1, six)}));  // column c exists
    // A partial image at 7; at 6 the key is vacated and re-taken (pk = pk + 1).
    const std::vector<change> changes = {upsert(t, 1, 7, ab("7", "seven"), /*partial=*/true),
                                         remove(t, 1, 6), upsert(t, 1, 6, six)};
    for (int i : order)
      apply_batch(applier, w.merger.merge({changes[static_cast<size_t>(i)]}));
    CHECK(w.one("SELECT a || b || coalesce(c, '-') FROM " + w.target("orders") + " WHERE id = 1") ==
          "7sevensix");
  }
}

// Holds a lock on the state schema's dead_letters table, so that a batch transaction with a
// dead letter stops there, after its row writes, until release().
struct dead_letter_gate {
  pqxx::connection conn;
  std::unique_ptr<pqxx::work> tx;
  dead_letter_gate(const std::string& dsn, const std::string& state) : conn(dsn) {
    tx = std::make_unique<pqxx::work>(conn);
    tx->exec("LOCK TABLE \"" + state + "\".dead_letters IN EXCLUSIVE MODE");
  }
  void release() { tx->commit(); }
};

bool wait_for_lock_wait(world& w, const std::string& app) {
  for (int i = 0; i < 1000; ++i) {
    pqxx::work tx(w.look);
    if (!tx.exec_params("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND "
                        "wait_event_type = 'Lock'",
                        app)
             .empty()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST_CASE("a connection killed in the middle of a batch transaction is re-run to the exact state") {
  world w;
  table_entry* t = w.table("orders");
  const std::string app = unique_name("killed");
  test_sink applier(with_application_name(w.dsn, app), w.options());
  const auto claimed = applier.claim("cdc.orders", {partition_id(0)});
  apply_batch(
      applier, w.merger.merge({upsert(t, 1, 1, ab("1", "old")), upsert(t, 2, 1, ab("1", "old"))}),
      {{"cdc.orders", partition_id(0), claimed[0].epoch, kafka_offset(-1), kafka_offset(2)}});

  dead_letter_gate gate(w.dsn, w.state);
  dead_letter dl;
  dl.reason = "undecodable";
  apply_stats stats;
  std::string error;
  std::thread batch([&] {
    try {
      stats = apply_batch(
          applier, w.merger.merge({upsert(t, 1, 5, ab("5", "new")), remove(t, 2, 5)}),
          {{"cdc.orders", partition_id(0), claimed[0].epoch, kafka_offset(2), kafka_offset(4)}},
          {dl});
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  REQUIRE(wait_for_lock_wait(w, app));
  CHECK(w.terminate(app) == 1);
  // The re-run waits at the gate again; let it through.
  REQUIRE(wait_for_lock_wait(w, app));
  gate.release();
  batch.join();
  CHECK(error == "");
  CHECK(stats.attempts == 2);
  CHECK(w.one("SELECT string_agg(id || ':' || a || b, ' ' ORDER BY id) FROM " +
              w.target("orders")) == "1:5new");
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters") == 1);
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "4");
}

// Applies one batch through the proxy with the given fault armed for its COMMIT, and checks
// that the replica, the dead letters and the offsets are exactly those of one application.
void check_lost_commit(pg_fault_proxy::fault f) {
  world w;
  auto proxy = proxy_for(w.dsn);
  table_entry* t = w.table("orders");
  test_sink applier(proxy->with_proxy(w.dsn), w.options());
  const auto claimed = applier.claim("cdc.orders", {partition_id(3)});
  apply_batch(
      applier, w.merger.merge({upsert(t, 1, 1, ab("1", "old")), upsert(t, 2, 1, ab("1", "old"))}),
      {{"cdc.orders", partition_id(3), claimed[0].epoch, kafka_offset(-1), kafka_offset(2)}});

  dead_letter dl;
  dl.reason = "undecodable";
  proxy->arm(f);
  const apply_stats s = apply_batch(
      applier,
      w.merger.merge(
          {upsert(t, 1, 5, ab("5", "new")), remove(t, 2, 5), upsert(t, 3, 5, ab("5", "new"))}),
      {{"cdc.orders", partition_id(3), claimed[0].epoch, kafka_offset(2), kafka_offset(5)}}, {dl});
  CHECK(proxy->faults_injected() == 1);
  CHECK(s.attempts >= 1);
  CHECK(w.one("SELECT string_agg(id || ':' || a || b, ' ' ORDER BY id) FROM " +
              w.target("orders")) == "1:5new 3:5new");
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters") == 1);
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "5");
  // The applier goes on from there.
  apply_batch(
      applier, w.merger.merge({upsert(t, 4, 6, ab("6", "next"))}),
      {{"cdc.orders", partition_id(3), claimed[0].epoch, kafka_offset(5), kafka_offset(6)}});
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 3);
}

TEST_CASE("a connection lost after COMMIT reached the server: the offsets say committed") {
  check_lost_commit(pg_fault_proxy::fault::after_commit);
}

TEST_CASE("a connection lost before COMMIT reached the server: the batch is run again") {
  check_lost_commit(pg_fault_proxy::fault::before_commit);
}

TEST_CASE("a backend terminated right after its COMMIT: the offsets say committed") {
  check_lost_commit(pg_fault_proxy::fault::fatal_after_commit);
}

TEST_CASE("an in-doubt COMMIT the server is still running is waited for, not run again") {
  world w;
  auto proxy = proxy_for(w.dsn);
  table_entry* t = w.table("orders");
  test_sink applier(proxy->with_proxy(w.dsn), w.options());
  const auto claimed = applier.claim("cdc.orders", {partition_id(0)});
  apply_batch(
      applier, w.merger.merge({upsert(t, 1, 1, ab("1", "old"))}),
      {{"cdc.orders", partition_id(0), claimed[0].epoch, kafka_offset(-1), kafka_offset(1)}});
  {
    // A slow COMMIT: a deferred trigger that sleeps when the transaction commits.
    pqxx::work tx(w.look);
    tx.exec("CREATE FUNCTION " + w.target("slow") +
            "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; "
            "END $$");
    tx.exec("CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT OR UPDATE ON " +
            w.target("orders") + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " +
            w.target("slow") + "()");
    tx.commit();
  }
  // The connection drops the moment COMMIT is on its way: the applier asks at once what
  // happened, while the server is still committing.
  proxy->arm(pg_fault_proxy::fault::racing_commit);
  apply_stats s;
  std::string error;
  try {
    s = apply_batch(
        applier, w.merger.merge({upsert(t, 1, 5, ab("5", "new"))}),
        {{"cdc.orders", partition_id(0), claimed[0].epoch, kafka_offset(1), kafka_offset(2)}});
  } catch (const std::exception& e) {
    error = e.what();
  }
  CHECK(proxy->faults_injected() == 1);
  CHECK(error == "");
  CHECK(w.one("SELECT a || b FROM " + w.target("orders")) == "5new");
  CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "2");
}

TEST_CASE("a COMMIT of the table's creation lost either way: the batch still lands once") {
  for (auto f : {pg_fault_proxy::fault::after_commit, pg_fault_proxy::fault::before_commit}) {
    world w;
    auto proxy = proxy_for(w.dsn);
    table_entry* t = w.table("orders");
    test_sink applier(proxy->with_proxy(w.dsn), w.options());
    const auto claimed = applier.claim("cdc.orders", {partition_id(0)});
    proxy->arm(f);  // the next COMMIT is auto-create's
    const apply_stats s = apply_batch(
        applier, w.merger.merge({upsert(t, 1, 1, ab("1", "one"))}),
        {{"cdc.orders", partition_id(0), claimed[0].epoch, kafka_offset(-1), kafka_offset(1)}});
    CHECK(proxy->faults_injected() == 1);
    CHECK(s.attempts == 2);
    CHECK(w.one("SELECT a || b FROM " + w.target("orders")) == "1one");
    CHECK(w.one("SELECT next_offset FROM \"" + w.state + "\".offsets") == "1");
  }
}

TEST_CASE("a connection lost while COMMIT races to the server: exact either way") {
  for (int i = 0; i < 5; ++i)
    check_lost_commit(pg_fault_proxy::fault::racing_commit);
}

}  // namespace
}  // namespace sluice
