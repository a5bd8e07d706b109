// test_sink::apply throughput against a raw COPY of the same rows (SPEC §8 "Benchmarks"):
// for each workload, batches of --rows rows (default 10,000; five columns of ~200 bytes in
// all) go through apply() — one transaction each, with offsets, key locks, tombstones and
// guards — and then, as the same-run reference, through a plain libpq COPY into a fresh table
// created LIKE the target (same columns, types and primary key), one transaction per batch,
// right after the apply() of that batch (so that both meet the same load on a shared
// machine). Prints rows/s of both and their ratio. merge() runs before the timed apply() and
// is not counted (merge_bench measures it).
//
//   integration/bench/run_apply_bench.sh [--rows N] [--batches N] [--only NAME]
//                                        [--path copy|unnest|both]
//   build/integration/apply_bench --dsn postgresql://… [same options]
//
// --path: how apply() sends a statement's rows (apply_options::bulk_path): COPY into a
// staging table, unnest() over array parameters, or both one after the other (default).
//
// Workloads:
//   insert-only   every row a new key (full images)
//   update-heavy  every row an update of an existing key (full images, newer CSN)
//   delete-mix    40% updates, 30% inserts, 30% deletes of existing keys
//   partial       partial images (2 of the 5 columns) of existing keys: per-column CSNs
#include <libpq-fe.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "tests/sinks/test_sink.h"

namespace {

using sluice::change;
using clock_type = std::chrono::steady_clock;

struct options {
  std::string dsn;
  size_t rows = 10'000;
  int batches = 8;
  std::string only;
  std::string path = "both";  // copy, unnest or both: how apply() sends rows (apply_options)
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dsn") o.dsn = argv[i + 1];
    if (flag == "--rows") o.rows = std::strtoul(argv[i + 1], nullptr, 10);
    if (flag == "--batches") o.batches = std::atoi(argv[i + 1]);
    if (flag == "--only") o.only = argv[i + 1];
    if (flag == "--path") o.path = argv[i + 1];
  }
  if (o.dsn.empty()) {
    if (const char* env = std::getenv("SLUICE_TEST_PG_DSN"); env && *env) o.dsn = env;
  }
  if (o.dsn.empty()) {
    if (const char* run = std::getenv("SLUICE_RUN_DIR"); run && *run) {
      std::ifstream file(std::string(run) + "/postgres.dsn");
      std::getline(file, o.dsn);
    }
  }
  if (o.dsn.empty())
    throw std::runtime_error("no PostgreSQL: --dsn, SLUICE_TEST_PG_DSN or SLUICE_RUN_DIR");
  return o;
}

// ---------------------------------------------------------------------------------------------
// Row images
// ---------------------------------------------------------------------------------------------

class image_maker {
 public:
  sluice::image full(int64_t id) {
    return {{"id", sluice::value::number(std::to_string(id))},
            {"amount", sluice::value::number(std::to_string(_rng() % 1'000'000) + ".25")},
            {"customer", sluice::value::string(text(48))},
            {"status", sluice::value::string(text(16))},
            {"note", sluice::value::string(text(80))},
            {"payload", sluice::value::json("{\"k\": \"" + text(32) + "\"}")}};
  }
  sluice::image partial(int64_t id) {
    return {{"id", sluice::value::number(std::to_string(id))},
            {"amount", sluice::value::number(std::to_string(_rng() % 1'000'000) + ".75")},
            {"status", sluice::value::string(text(16))}};
  }
  std::mt19937_64& rng() { return _rng; }

 private:
  std::string text(size_t n) {
    static constexpr char chars[] =
        "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(n, ' ');
    for (char& c : s)
      c = chars[_rng() % (sizeof chars - 1)];
    return s;
  }
  std::mt19937_64 _rng{7};
};

struct source {
  sluice::table_entry* table = nullptr;
  int64_t seq = 1'000;
  image_maker images;

  sluice::csn next_csn() { return sluice::csn_builder().add(1).add(++seq).build(); }
  change upsert(int64_t id, bool partial) {
    change c;
    c.table = table;
    c.key = sluice::make_row_key({"id"}, {sluice::value::number(std::to_string(id))}).value();
    c.after = partial ? images.partial(id) : images.full(id);
    c.partial = partial;
    c.seq = next_csn();
    return c;
  }
  change remove(int64_t id) {
    change c;
    c.op = sluice::op_kind::remove;
    c.table = table;
    c.key = sluice::make_row_key({"id"}, {sluice::value::number(std::to_string(id))}).value();
    c.seq = next_csn();
    return c;
  }
};

// ---------------------------------------------------------------------------------------------
// The raw COPY reference: plain libpq, text format, one transaction per batch
// ---------------------------------------------------------------------------------------------

void copy_escape(std::string& out, const std::string& text) {
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out.push_back(c);
    }
  }
}

class raw_copy {
 public:
  explicit raw_copy(const std::string& dsn) : _conn(PQconnectdb(dsn.c_str())) {
    if (PQstatus(_conn) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(_conn));
    exec("SET client_min_messages TO warning");
  }
  ~raw_copy() { PQfinish(_conn); }

  void exec(const std::string& sql) {
    PGresult* r = PQexec(_conn, sql.c_str());
    const auto status = PQresultStatus(r);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    const std::string error = ok ? "" : PQresultErrorMessage(r);
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + error);
  }

  // Copies the merged rows (key, columns, row CSN) into table, in one transaction.
  void copy(const std::string& table, const std::vector<std::string>& columns,
            const sluice::table_rows& rows) {
    exec("BEGIN");
    std::string list;
    for (const std::string& c : columns)
      list += (list.empty() ? "" : ", ") + std::string("\"") + c + "\"";
    PGresult* r =
        PQexec(_conn, ("COPY " + table + " (" + list + ", _sluice_csn) FROM STDIN").c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) throw std::runtime_error(PQerrorMessage(_conn));
    PQclear(r);
    std::string buf;
    for (const sluice::merged_row& row : rows.rows) {
      for (size_t c = 0; c < columns.size(); ++c) {
        const sluice::value* v = nullptr;
        for (const sluice::merged_column& m : row.columns) {
          if (m.name == columns[c]) v = &m.v;
        }
        if (c == 0) v = &row.key.values[0];
        if (!v || v->is_null() || v->is_absent()) {
          buf += "\\N";
        } else {
          copy_escape(buf, v->text);
        }
        buf.push_back('\t');
      }
      const std::string_view seq = (row.exists() ? row.upsert_seq : row.delete_seq).bytes();
      buf += "\\\\x";
      static constexpr char hex[] = "0123456789abcdef";
      for (unsigned char b : seq) {
        buf.push_back(hex[b >> 4]);
        buf.push_back(hex[b & 15]);
      }
      buf.push_back('\n');
      if (buf.size() > (1 << 16)) {
        put(buf);
        buf.clear();
      }
    }
    put(buf);
    if (PQputCopyEnd(_conn, nullptr) != 1) throw std::runtime_error(PQerrorMessage(_conn));
    r = PQgetResult(_conn);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    while ((r = PQgetResult(_conn)))
      PQclear(r);
    if (!ok) throw std::runtime_error(PQerrorMessage(_conn));
    exec("COMMIT");
  }

 private:
  void put(const std::string& data) {
    if (!data.empty() && PQputCopyData(_conn, data.data(), static_cast<int>(data.size())) != 1) {
      throw std::runtime_error(PQerrorMessage(_conn));
    }
  }
  PGconn* _conn;
};

// ---------------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------------

struct result {
  std::string name;
  std::string path;
  size_t rows = 0;
  double apply_seconds = 0;
  double copy_seconds = 0;
};

class bench {
 public:
  explicit bench(options o) : _o(std::move(o)), _look(_o.dsn) {
    _schema = "bench_" + std::to_string(getpid());
    _state = "bench_state_" + std::to_string(getpid());
    drop();
  }
  ~bench() {
    try {
      drop();
    } catch (...) {
    }
  }

  result run(const std::string& name, sluice::apply_bulk_path path) {
    const bool partial = name == "partial";
    const std::string path_name = path == sluice::apply_bulk_path::copy ? "copy" : "unnest";
    source src;
    src.table = _catalog.intern({"", _schema, name + "_" + path_name});
    sluice::apply_options ao;
    ao.state_schema = _state;
    ao.connector = "bench";
    ao.bulk_path = path;
    sluice::test_sink applier(_o.dsn, ao);
    const std::string topic = "bench." + name + "." + path_name;
    const auto claimed = applier.claim(topic, {sluice::partition_id(0)});
    int64_t offset = -1;
    auto progress = [&](size_t n) {
      std::vector<sluice::partition_progress> p = {
          {topic, sluice::partition_id(0), claimed[0].epoch, sluice::kafka_offset(offset),
           sluice::kafka_offset(std::max<int64_t>(offset, 0) + static_cast<int64_t>(n))}};
      offset = p[0].next.value();
      return p;
    };

    // Keys that exist: preloaded for the workloads that change existing rows.
    std::vector<int64_t> live;
    int64_t next_key = 0;
    auto fresh = [&] { return next_key++; };
    std::vector<std::vector<change>> batches;
    {
      // Warm-up (untimed): creates the table, and the rows the other workloads change; a
      // partial image makes the table keep per-column CSNs.
      std::vector<change> first;
      const size_t preload = name == "insert-only" ? 100 : _o.rows;
      for (size_t i = 0; i < preload; ++i) {
        live.push_back(fresh());
        first.push_back(src.upsert(live.back(), false));
      }
      if (partial) first.push_back(src.upsert(live.front(), true));
      sluice::merge_engine m;
      applier.apply(m.merge(std::move(first)), {}, progress(preload));
    }
    for (int b = 0; b < _o.batches; ++b) {
      std::vector<change> batch;
      std::shuffle(live.begin(), live.end(), src.images.rng());
      if (name == "insert-only") {
        for (size_t i = 0; i < _o.rows; ++i)
          batch.push_back(src.upsert(fresh(), false));
      } else if (name == "update-heavy" || partial) {
        for (size_t i = 0; i < _o.rows && i < live.size(); ++i)
          batch.push_back(src.upsert(live[i], partial));
      } else {
        const size_t updates = _o.rows * 4 / 10, deletes = _o.rows * 3 / 10;
        std::vector<int64_t> kept;
        for (size_t i = 0; i < live.size(); ++i) {
          if (i < updates) {
            batch.push_back(src.upsert(live[i], false));
            kept.push_back(live[i]);
          } else if (i < updates + deletes) {
            batch.push_back(src.remove(live[i]));
          } else {
            kept.push_back(live[i]);
          }
        }
        while (batch.size() < _o.rows) {
          kept.push_back(fresh());
          batch.push_back(src.upsert(kept.back(), false));
        }
        live = std::move(kept);
      }
      batches.push_back(std::move(batch));
    }

    // merge (untimed), then apply each batch.
    std::vector<sluice::merged_batch> merged;
    sluice::merge_engine merger;
    for (std::vector<change>& b : batches)
      merged.push_back(merger.merge(std::move(b)));
    result out;
    out.name = name;
    out.path = path_name;
    // The reference: the same rows, each batch COPYed into a fresh table like the target
    // (created untimed: the update workloads repeat keys from batch to batch). Each apply()
    // is followed by the COPY of the same batch, so that both see the same load on a shared
    // machine and their ratio stays meaningful when other work comes and goes.
    const std::string target = "\"" + _schema + "\".\"" + src.table->name.table + "\"";
    auto ref = [&](size_t b) {
      return "\"" + _schema + "\".\"" + src.table->name.table + "_ref" + std::to_string(b) + "\"";
    };
    raw_copy copier(_o.dsn);
    for (size_t b = 0; b < merged.size(); ++b)
      copier.exec("CREATE TABLE " + ref(b) + " (LIKE " + target + " INCLUDING ALL)");
    const std::vector<std::string> columns =
        partial ? std::vector<std::string>{"id", "amount", "status"}
                : std::vector<std::string>{"id", "amount", "customer", "status", "note", "payload"};
    for (size_t b = 0; b < merged.size(); ++b) {
      const sluice::merged_batch& m = merged[b];
      const auto t0 = clock_type::now();
      applier.apply(m, {}, progress(m.stats.rows));
      const auto t1 = clock_type::now();
      copier.copy(ref(b), columns, m.tables.at(0));
      const auto t2 = clock_type::now();
      out.rows += m.stats.rows;
      out.apply_seconds += std::chrono::duration<double>(t1 - t0).count();
      out.copy_seconds += std::chrono::duration<double>(t2 - t1).count();
    }
    return out;
  }

 private:
  void drop() {
    pqxx::work tx(_look);
    tx.exec("SET client_min_messages TO warning");
    tx.exec("DROP SCHEMA IF EXISTS \"" + _schema + "\" CASCADE");
    tx.exec("DROP SCHEMA IF EXISTS \"" + _state + "\" CASCADE");
    tx.commit();
  }

  options _o;
  pqxx::connection _look;
  sluice::table_catalog _catalog;
  std::string _schema, _state;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    bench b(o);
    std::vector<result> results;
    for (const char* name : {"insert-only", "update-heavy", "delete-mix", "partial"}) {
      if (!o.only.empty() && o.only != name) continue;
      for (const auto path : {sluice::apply_bulk_path::copy, sluice::apply_bulk_path::unnest}) {
        const bool copy = path == sluice::apply_bulk_path::copy;
        if (o.path != "both" && o.path != (copy ? "copy" : "unnest")) continue;
        results.push_back(b.run(name, path));
      }
    }
    std::printf(
        "apply_bench: %d batches of %zu rows per workload, 5 columns (~200 bytes), one "
        "transaction per batch\n",
        o.batches, o.rows);
    std::printf("%-14s %-7s %8s %13s %13s %7s\n", "workload", "rows by", "rows", "apply rows/s",
                "COPY rows/s", "ratio");
    for (const result& r : results) {
      const double apply = static_cast<double>(r.rows) / r.apply_seconds;
      const double copy = static_cast<double>(r.rows) / r.copy_seconds;
      std::printf("%-14s %-7s %8zu %13.0f %13.0f %6.0f%%\n", r.name.c_str(), r.path.c_str(), r.rows,
                  apply, copy, 100 * apply / copy);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apply_bench: %s\n", e.what());
    return 1;
  }
}
