// sluice end to end against the real broker and PostgreSQL (or MariaDB) on the same machine (SPEC
// §8 "Benchmarks": end to end vs a raw COPY of the same rows; p50/p99 latency at a fixed rate; peak
// RSS). A program that prints figures, not a test.
//
//   integration/bench/run_e2e_bench.sh [options]        starts its own Kafka and PostgreSQL
//   SLUICE_RUN_DIR=… SLUICE_BINARY=build/sluice build/integration/e2e_bench [options]
//
// Phase 1, throughput. --events events of --format (integration/bench/e2e_workloads.h: the
// Datastream mix, JSON or Avro, or Debezium's 400/500/100 transactions with tombstones, 11 or
// 40 columns, with or without schemas) are pre-loaded on a --partitions topic before sluice
// starts. Then `sluice run` starts (batch.size --batch-size, apply.lanes --lanes) and the clock
// runs until sum(sluice.offsets.next_offset) reaches the messages produced (polled every
// 100 ms). sluice's CPU time and VmHWM are read from /proc before it stops; its /metrics give the
// rows written. The same-run reference: the row image of every non-delete event COPYed (libpq,
// text format, one transaction per --batch-size rows) into a fresh table LIKE sluice's (same
// columns, types and primary key), keys made unique (a primary key refuses a key's repeats);
// PostgreSQL's CPU is read for both, so its cost per event is set against COPY's per row.
//
// --target mariadb (run_e2e_bench.sh --target mariadb starts MariaDB instead of PostgreSQL):
// sluice writes to the run dir's MariaDB (mariadb.dsn), the offsets are read from its
// `sluice`.offsets, the server's CPU is mariadbd's (mariadb.pid), and the reference is a raw
// LOAD DATA LOCAL INFILE of the same rows (e2e_mariadb.h), one statement per --batch-size rows.
// --inserts-only (Datastream formats): every event inserts a new key.
//
// Phase 2, latency. A second sluice instance on a second topic; a producer paced in 10 ms
// ticks writes --rate INSERTs/s of new keys for --seconds, each carrying its produce wall-clock
// time (µs) in `produced_us`. Latency = the commit time of the row's transaction
// (pg_xact_commit_timestamp(xmin), with track_commit_timestamp on, as run_e2e_bench.sh sets
// it) − produced_us, in SQL (percentile_cont); without commit timestamps, _sluice_updated_at
// (now() in the batch transaction, its start) stands in and leaves the apply itself out.
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <librdkafka/rdkafka.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "integration/bench/e2e_mariadb.h"
#include "integration/bench/e2e_workloads.h"
#include "integration/support/process_stats.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct options {
  std::string format = "datastream";
  size_t events = 1'000'000;
  int batch_size = 10'000;
  int lanes = 2;
  int partitions = 0;  // 0: the format's (6 for Datastream, 4 for Debezium)
  int rate = 10'000;
  int seconds = 20;
  uint64_t seed = 42;
  bool keep = false;               // keep the bench tables
  bool mariadb = false;            // --target mariadb
  bool inserts_only = false;       // --inserts-only
  std::vector<std::string> kafka;  // --kafka name=value: librdkafka properties for sluice
  std::vector<std::string> set;    // --set name=value: top-level config settings for sluice
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--keep") {
      o.keep = true;
      continue;
    }
    if (flag == "--inserts-only") {
      o.inserts_only = true;
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + flag);
    const char* v = argv[++i];
    if (flag == "--format") {
      o.format = v;
    } else if (flag == "--target") {
      const std::string t = v;
      if (t != "postgres" && t != "mariadb") {
        throw std::runtime_error("--target is postgres or mariadb, not " + t);
      }
      o.mariadb = t == "mariadb";
    } else if (flag == "--kafka" || flag == "--set") {
      const std::string kv = v;
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) throw std::runtime_error(flag + " takes name=value");
      (flag == "--kafka" ? o.kafka : o.set).push_back(kv.substr(0, eq) + ": " + kv.substr(eq + 1));
    } else if (flag == "--events") {
      o.events = std::strtoull(v, nullptr, 10);
    } else if (flag == "--batch-size") {
      o.batch_size = std::atoi(v);
    } else if (flag == "--lanes") {
      o.lanes = std::atoi(v);
    } else if (flag == "--partitions") {
      o.partitions = std::atoi(v);
    } else if (flag == "--rate") {
      o.rate = std::atoi(v);
    } else if (flag == "--seconds") {
      o.seconds = std::atoi(v);
    } else if (flag == "--seed") {
      o.seed = std::strtoull(v, nullptr, 10);
    } else {
      throw std::runtime_error("unknown option " + flag +
                               " (--format F --kafka name=value --set name=value --events N "
                               "--batch-size N --lanes N --partitions N --rate N --seconds N "
                               "--seed N --keep --target postgres|mariadb --inserts-only; "
                               "--events 0 or --rate 0 skips a phase)");
    }
  }
  if (o.partitions == 0) o.partitions = o.format.starts_with("debezium") ? 4 : 6;
  make_workload(o.format, "t", 0, 0, false, o.inserts_only);  // refuses an unknown --format now
  if (o.batch_size < 1 || o.lanes < 1 || o.partitions < 1) {
    throw std::runtime_error("--batch-size, --lanes and --partitions must be at least 1");
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Kafka: one long-lived producer (acks=all, idempotent), asynchronous sends
// ---------------------------------------------------------------------------------------------

class bench_producer {
 public:
  explicit bench_producer(int linger_ms) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    const std::map<std::string, std::string> settings = {
        {"bootstrap.servers", kafka_bootstrap()},
        {"acks", "all"},
        {"enable.idempotence", "true"},
        {"linger.ms", std::to_string(linger_ms)},
        {"queue.buffering.max.messages", "1000000"},
    };
    for (const auto& [k, v] : settings) {
      if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(k + ": " + err);
      }
    }
    rd_kafka_conf_set_dr_msg_cb(conf, &bench_producer::delivered);
    rd_kafka_conf_set_opaque(conf, &_failures);
    _rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!_rk) throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  }
  ~bench_producer() { rd_kafka_destroy(_rk); }
  bench_producer(const bench_producer&) = delete;
  bench_producer& operator=(const bench_producer&) = delete;

  void send(const std::string& topic, const bench_message& m) {
    for (;;) {
      const auto err = rd_kafka_producev(
          _rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_KEY(const_cast<char*>(m.key.data()), m.key.size()),
          RD_KAFKA_V_VALUE((m.value ? const_cast<char*>(m.value->data()) : nullptr),
                           (m.value ? m.value->size() : 0)),
          RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(_rk, 10);
        continue;
      }
      if (err) throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(err));
      return;
    }
  }

  void poll() { rd_kafka_poll(_rk, 0); }

  void flush() {
    if (rd_kafka_flush(_rk, 120'000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("produce: flush timed out");
    }
    if (_failures > 0) {
      throw std::runtime_error("produce: " + std::to_string(_failures.load()) + " failed");
    }
  }

 private:
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    if (m->err) ++*static_cast<std::atomic<int>*>(opaque);
  }
  rd_kafka_t* _rk = nullptr;
  std::atomic<int> _failures{0};
};

// ---------------------------------------------------------------------------------------------
// sluice's /metrics
// ---------------------------------------------------------------------------------------------

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("no free port");
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

double metric(const std::string& text, const std::string& name, const std::string& label = "") {
  double sum = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    if (!label.empty() && line.find(label) == std::string::npos) continue;
    sum += std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr);
  }
  return sum;
}

// basic_config with apply.lanes and /metrics on a free loopback port.
std::string bench_config(const std::string& connector, const std::string& topic, const options& o,
                         const char* format, uint16_t metrics_port) {
  std::string extra = "apply.lanes: " + std::to_string(o.lanes) + "\n";
  for (const std::string& line : o.set)
    extra += line + "\n";
  const std::string target = o.mariadb ? mariadb_bench::config_section()
                                       : "postgres:\n  dsn: \"" + postgres_dsn() + "\"\n";
  std::string y = config_for_target(target, connector, topic, format, extra, o.batch_size);
  for (const std::string& line : o.kafka)
    y.insert(y.find("kafka:\n") + 7, "  " + line + "\n");
  const std::string off = "  listen: \"\"";
  const size_t at = y.find(off);
  if (at == std::string::npos) throw std::runtime_error("basic_config has no metrics.listen");
  y.replace(at, off.size(), "  listen: \"127.0.0.1:" + std::to_string(metrics_port) + "\"");
  return y;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

// Polls sum(sluice.offsets.next_offset) on one connection (0 until sluice created the table):
// PostgreSQL's, or MariaDB's with --target mariadb.
class offset_watch {
 public:
  offset_watch(std::string connector, const options& o)
      : _conn(o.mariadb ? std::optional<pqxx::connection>()
                        : std::optional<pqxx::connection>(std::in_place, postgres_dsn())),
        _connector(std::move(connector)) {
    if (o.mariadb) _mdb = std::make_unique<mariadb_bench>();
  }

  int64_t committed() {
    if (_mdb) return _mdb->committed(_connector);
    try {
      pqxx::nontransaction tx(*_conn);
      auto r =
          tx.exec("SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE connector = " +
                  tx.quote(_connector));
      return r[0][0].as<int64_t>();
    } catch (const pqxx::sql_error&) {
      return 0;  // sluice.offsets does not exist yet
    }
  }

  struct first_commit {
    double seconds = -1;  // from the `start` given to wait_for
    int64_t messages = 0;
  };

  // Waits until `target` messages are committed; fails when sluice exits or stalls.
  first_commit wait_for(int64_t target, sluice_process& p, clock_type::time_point start,
                        int stall_seconds = 120) {
    first_commit first;
    int64_t last = -1;
    auto last_progress = clock_type::now();
    auto last_report = clock_type::now();
    for (;;) {
      const int64_t now = committed();
      if (now > 0 && first.seconds < 0) first = {since(start), now};
      if (now >= target) return first;
      if (now != last) {
        last = now;
        last_progress = clock_type::now();
      }
      if (!p.running()) throw std::runtime_error("sluice exited; log:\n" + p.log());
      if (since(last_progress) > stall_seconds) {
        throw std::runtime_error("no progress for " + std::to_string(stall_seconds) + " s at " +
                                 std::to_string(now) + "/" + std::to_string(target) + "; log:\n" +
                                 p.log());
      }
      if (since(last_report) > 10) {
        std::fprintf(stderr, "  committed %lld/%lld\n", static_cast<long long>(now),
                     static_cast<long long>(target));
        last_report = clock_type::now();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

 private:
  std::optional<pqxx::connection> _conn;
  std::unique_ptr<mariadb_bench> _mdb;
  std::string _connector;
};

// The raw COPY reference: plain libpq, text format, one transaction per buffer.
class raw_copy {
 public:
  raw_copy() : _conn(PQconnectdb(postgres_dsn().c_str())) {
    if (PQstatus(_conn) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(_conn));
  }
  ~raw_copy() { PQfinish(_conn); }
  raw_copy(const raw_copy&) = delete;
  raw_copy& operator=(const raw_copy&) = delete;

  void exec(const std::string& sql) {
    PGresult* r = PQexec(_conn, sql.c_str());
    const auto status = PQresultStatus(r);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    const std::string error = ok ? "" : PQresultErrorMessage(r);
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + error);
  }

  void copy(const std::string& table, const std::vector<std::string>& columns,
            const std::string& lines) {
    std::string list;
    for (const std::string& c : columns)
      list += (list.empty() ? "\"" : ", \"") + c + "\"";
    exec("BEGIN");
    PGresult* r = PQexec(_conn, ("COPY " + table + " (" + list + ") FROM STDIN").c_str());
    const bool started = PQresultStatus(r) == PGRES_COPY_IN;
    PQclear(r);
    if (!started) throw std::runtime_error(PQerrorMessage(_conn));
    constexpr size_t chunk = 1 << 16;
    for (size_t at = 0; at < lines.size(); at += chunk) {
      const int n = static_cast<int>(std::min(chunk, lines.size() - at));
      if (PQputCopyData(_conn, lines.data() + at, n) != 1) {
        throw std::runtime_error(PQerrorMessage(_conn));
      }
    }
    if (PQputCopyEnd(_conn, nullptr) != 1) throw std::runtime_error(PQerrorMessage(_conn));
    bool ok = true;
    std::string error;
    while ((r = PQgetResult(_conn))) {
      if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        ok = false;
        error = PQresultErrorMessage(r);
      }
      PQclear(r);
    }
    if (!ok) throw std::runtime_error("COPY " + table + ": " + error);
    exec("COMMIT");
  }

 private:
  PGconn* _conn;
};

std::string quoted_table(const std::string& name) {
  return "public.\"" + name + "\"";
}

// ---------------------------------------------------------------------------------------------
// Phase 1: throughput
// ---------------------------------------------------------------------------------------------

struct throughput_result {
  std::string describe;
  size_t events = 0;
  size_t messages = 0;       // events and tombstones
  double message_bytes = 0;  // keys and values
  size_t inserts = 0, updates = 0, deletes = 0, hot_keys = 0, live_keys = 0;
  double produce_seconds = 0;
  double seconds = 0;                          // sluice spawn -> every event committed
  double first_commit = 0;                     // sluice spawn -> first commit
  int64_t first_commit_messages = 0;           // committed by then
  double cpu_seconds = 0;                      // sluice utime + stime
  double kafka_cpu = -1, postgres_cpu = -1;    // the same window (MariaDB's with --target)
  double machine_busy = 0, machine_total = 0;  // every core, the same window
  double others_cpu = 0;  // machine_busy − sluice, Kafka, PostgreSQL and this program
  double copy_machine_busy = 0, copy_machine_total = 0;
  double copy_postgres_cpu = -1;  // PostgreSQL during the COPY (MariaDB during LOAD DATA)
  uint64_t copy_warnings = 0;     // LOAD DATA's warnings (values the server changed)
  double peak_rss_mb = 0;
  double applied = 0, deleted = 0, stale = 0, collapsed = 0;
  double batches = 0, batch_apply_seconds = 0;
  int64_t final_rows = 0;
  size_t copy_rows = 0;
  double copy_seconds = 0;
  int exit_code = -1;
};

// The target's server CPU seconds: PostgreSQL's tree, or mariadbd.
double server_cpu(const service_cpu& s, const options& o) {
  return o.mariadb ? s.mariadb : s.postgres;
}

// The same row images as the throughput phase's, into a fresh table like sluice's: COPY on
// PostgreSQL, LOAD DATA LOCAL INFILE on MariaDB. Fills the copy_* figures.
void run_reference(const options& o, const std::string& table, const bench_workload& w,
                   const std::vector<std::string>& copy_batches, throughput_result& res) {
  std::fprintf(stderr, "%s reference: %zu rows...\n", o.mariadb ? "LOAD DATA" : "COPY",
               res.copy_rows);
  std::optional<raw_copy> copier;
  std::unique_ptr<mariadb_bench> loader;
  std::vector<std::string> load_batches;
  const std::string ref =
      o.mariadb ? mariadb_bench::table(table + "_load") : quoted_table(table + "_copy");
  if (o.mariadb) {
    loader = std::make_unique<mariadb_bench>();
    loader->exec("CREATE TABLE " + ref + " LIKE " + mariadb_bench::table(table));
    load_batches = loader->convert(table, w.copy_columns(), copy_batches);
  } else {
    copier.emplace();
    copier->exec("CREATE TABLE " + ref + " (LIKE " + quoted_table(table) + " INCLUDING ALL)");
  }
  const machine_cpu copy_before = machine_cpu::now();
  const service_cpu copy_services_before = service_cpu::now();
  const auto t1 = clock_type::now();
  if (o.mariadb) {
    for (const std::string& lines : load_batches)
      loader->load(ref, w.copy_columns(), lines);
  } else {
    for (const std::string& lines : copy_batches)
      copier->copy(ref, w.copy_columns(), lines);
  }
  res.copy_seconds = since(t1);
  const machine_cpu copy_after = machine_cpu::now();
  if (server_cpu(copy_services_before, o) >= 0) {
    res.copy_postgres_cpu = server_cpu(service_cpu::now(), o) - server_cpu(copy_services_before, o);
  }
  res.copy_machine_busy = copy_after.busy - copy_before.busy;
  res.copy_machine_total = copy_after.total - copy_before.total;
  if (o.mariadb) {
    res.copy_warnings = loader->warnings();
    const int64_t loaded = loader->count(ref);
    if (loaded != static_cast<int64_t>(res.copy_rows)) {
      throw std::runtime_error("LOAD DATA loaded " + std::to_string(loaded) + " of " +
                               std::to_string(res.copy_rows) + " rows");
    }
    if (!o.keep) loader->exec("DROP TABLE " + ref);
  } else if (!o.keep) {
    copier->exec("DROP TABLE " + ref);
  }
}

throughput_result run_throughput(const options& o, const std::string& table) {
  throughput_result res;
  res.events = o.events;
  const std::string topic = unique_name("bench_e2e");
  const std::string connector = unique_name("bench_e2e");
  create_topic(topic, o.partitions);

  // Pre-load; the COPY reference's lines are built on the way (untimed by the COPY clock).
  std::fprintf(stderr, "producing %zu %s events to %s...\n", o.events, o.format.c_str(),
               topic.c_str());
  const std::unique_ptr<bench_workload> w =
      make_workload(o.format, table, o.events, o.seed, false, o.inserts_only);
  res.describe = w->describe();
  res.hot_keys = w->hot_keys();
  std::vector<std::string> copy_batches(1);
  size_t in_batch = 0;
  {
    bench_producer producer(20);
    std::vector<bench_message> messages;
    const auto t0 = clock_type::now();
    for (size_t i = 0; i < o.events; ++i) {
      if (in_batch == static_cast<size_t>(o.batch_size)) {
        copy_batches.emplace_back();
        in_batch = 0;
      }
      messages.clear();
      const bench_op op = w->next(messages, copy_batches.back(), static_cast<int64_t>(i + 1));
      for (const bench_message& m : messages) {
        producer.send(topic, m);
        res.message_bytes += static_cast<double>(m.key.size() + (m.value ? m.value->size() : 0));
      }
      res.messages += messages.size();
      if (op == bench_op::remove) {
        ++res.deletes;
        continue;
      }
      ++(op == bench_op::insert ? res.inserts : res.updates);
      ++in_batch;
      ++res.copy_rows;
      if (i % 1024 == 0) producer.poll();
    }
    producer.flush();
    res.produce_seconds = since(t0);
  }
  res.live_keys = w->live_keys();

  // sluice, from spawn to the last commit.
  std::fprintf(stderr, "running sluice (batch.size %d, apply.lanes %d)...\n", o.batch_size,
               o.lanes);
  const uint16_t port = free_port();
  offset_watch watch(connector, o);
  const service_cpu services_before = service_cpu::now();
  const machine_cpu machine_before = machine_cpu::now();
  const double self_before = process_cpu_seconds(::getpid());
  const auto start = clock_type::now();
  sluice_process p(bench_config(connector, topic, o, w->sluice_format(), port), "bench_e2e");
  const auto first = watch.wait_for(static_cast<int64_t>(res.messages), p, start);
  res.first_commit = first.seconds;
  res.first_commit_messages = first.messages;
  res.seconds = since(start);
  res.cpu_seconds = process_cpu_seconds(p.pid());
  res.peak_rss_mb = process_peak_rss_mb(p.pid());
  const service_cpu services_after = service_cpu::now();
  const machine_cpu machine_after = machine_cpu::now();
  if (services_before.kafka >= 0) res.kafka_cpu = services_after.kafka - services_before.kafka;
  if (server_cpu(services_before, o) >= 0) {
    res.postgres_cpu = server_cpu(services_after, o) - server_cpu(services_before, o);
  }
  res.machine_busy = machine_after.busy - machine_before.busy;
  res.machine_total = machine_after.total - machine_before.total;
  res.others_cpu = res.machine_busy - res.cpu_seconds - std::max(0.0, res.kafka_cpu) -
                   std::max(0.0, res.postgres_cpu) -
                   (process_cpu_seconds(::getpid()) - self_before);
  const std::string m = http_request(port, "GET", "/metrics").body;
  res.applied = metric(m, "sluice_changes_total", "outcome=\"applied\"");
  res.deleted = metric(m, "sluice_changes_total", "outcome=\"deleted\"");
  res.stale = metric(m, "sluice_changes_total", "outcome=\"stale\"");
  res.collapsed = metric(m, "sluice_changes_total", "outcome=\"collapsed\"");
  res.batches = metric(m, "sluice_batch_apply_seconds_count");
  res.batch_apply_seconds = metric(m, "sluice_batch_apply_seconds_sum");
  res.exit_code = p.stop(120);
  res.final_rows =
      o.mariadb ? mariadb_bench().count(mariadb_bench::table(table))
                : std::stoll(query("SELECT count(*) FROM " + quoted_table(table))[0][0].value());
  run_reference(o, table, *w, copy_batches, res);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: latency at a fixed rate
// ---------------------------------------------------------------------------------------------

struct latency_result {
  int64_t produced = 0;
  double produce_seconds = 0;  // first tick -> last send
  int late_ticks = 0;          // ticks that started after their deadline
  double max_tick_lag_ms = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  bool to_commit = false;  // measured to the commit, not to the transaction start
  int64_t measured = 0;
  double cpu_seconds = 0;  // sluice, during the paced window and the drain
  double window_seconds = 0;
  double peak_rss_mb = 0;
  double machine_busy = 0;  // fraction of every core's time, the same window
};

int64_t wall_clock_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

latency_result run_latency(const options& o, const std::string& table) {
  latency_result res;
  const std::string topic = unique_name("bench_latency");
  const std::string connector = unique_name("bench_latency");
  create_topic(topic, o.partitions);
  const uint16_t port = free_port();
  offset_watch watch(connector, o);
  std::fprintf(stderr, "latency: sluice on %s, %d events/s for %d s...\n", topic.c_str(), o.rate,
               o.seconds);
  const std::unique_ptr<bench_workload> w =
      make_workload(o.format, table, 0, o.seed + 7, true, o.inserts_only);
  sluice_process p(bench_config(connector, topic, o, w->sluice_format(), port), "bench_latency");
  bench_producer producer(1);
  auto send = [&](int64_t id) { producer.send(topic, w->stamped_insert(id, wall_clock_us())); };

  // Warm-up (negative keys, not measured): sluice joins the group and creates the table.
  const int warm = o.partitions * 20;
  for (int i = 1; i <= warm; ++i)
    send(-i);
  producer.flush();
  watch.wait_for(warm, p, clock_type::now(), 60);

  const double cpu_before = process_cpu_seconds(p.pid());
  const machine_cpu machine_before = machine_cpu::now();
  const auto window = clock_type::now();
  const int64_t total = int64_t{o.rate} * o.seconds;
  const int64_t ticks = int64_t{o.seconds} * 100;
  const auto start = clock_type::now();
  for (int64_t tick = 0; tick < ticks; ++tick) {
    const auto deadline = start + std::chrono::milliseconds(10 * tick);
    std::this_thread::sleep_until(deadline);
    const double lag_ms =
        std::chrono::duration<double, std::milli>(clock_type::now() - deadline).count();
    if (lag_ms > 1) ++res.late_ticks;
    res.max_tick_lag_ms = std::max(res.max_tick_lag_ms, lag_ms);
    const int64_t target = total * (tick + 1) / ticks;
    for (; res.produced < target; ++res.produced)
      send(res.produced + 1);
    producer.poll();
  }
  res.produce_seconds = since(start);
  producer.flush();
  watch.wait_for(warm + total, p, clock_type::now(), 60);
  res.window_seconds = since(window);
  res.cpu_seconds = process_cpu_seconds(p.pid()) - cpu_before;
  res.peak_rss_mb = process_peak_rss_mb(p.pid());
  const machine_cpu machine_after = machine_cpu::now();
  res.machine_busy =
      (machine_after.busy - machine_before.busy) / (machine_after.total - machine_before.total);
  p.stop(120);
  if (o.mariadb) {
    // MariaDB records no commit time: to _sluice_updated_at (UTC_TIMESTAMP(6) in the upsert).
    std::vector<double> l = mariadb_bench().numbers(
        "SELECT (UNIX_TIMESTAMP(_sluice_updated_at) * 1000000 - produced_us) / 1000.0 FROM " +
        mariadb_bench::table(table) + " WHERE id > 0");
    if (l.empty()) throw std::runtime_error("latency: no rows measured");
    std::sort(l.begin(), l.end());
    auto percentile = [&](double q) {  // percentile_cont's linear interpolation
      const double at = q * static_cast<double>(l.size() - 1);
      const auto lo = static_cast<size_t>(at);
      const double hi = l[std::min(lo + 1, l.size() - 1)];
      return l[lo] + (at - static_cast<double>(lo)) * (hi - l[lo]);
    };
    res.p50_ms = percentile(0.5);
    res.p99_ms = percentile(0.99);
    res.max_ms = l.back();
    res.measured = static_cast<int64_t>(l.size());
    return res;
  }

  // To the commit when the server records commit timestamps (run_e2e_bench.sh turns
  // track_commit_timestamp on): each row's inserting transaction, xmin, says when it committed.
  // Otherwise to the transaction's start (_sluice_updated_at).
  res.to_commit = query("SELECT current_setting('track_commit_timestamp')")[0][0].value() == "on";
  const std::string at =
      res.to_commit ? "pg_xact_commit_timestamp(xmin)" : std::string("_sluice_updated_at");
  const auto r = query(
      "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY l), "
      "percentile_cont(0.99) WITHIN GROUP (ORDER BY l), max(l), count(*) FROM (SELECT "
      "(extract(epoch FROM " +
      at + ") * 1000000 - produced_us) / 1000.0 AS l FROM " + quoted_table(table) +
      " WHERE id > 0) s");
  res.p50_ms = std::stod(r[0][0].value());
  res.p99_ms = std::stod(r[0][1].value());
  res.max_ms = std::stod(r[0][2].value());
  res.measured = std::stoll(r[0][3].value());
  return res;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

std::string command_line(int argc, char** argv) {
  if (const char* c = std::getenv("E2E_BENCH_COMMAND"); c && *c) return c;
  std::string s = argv[0];
  for (int i = 1; i < argc; ++i)
    s += std::string(" ") + argv[i];
  return s;
}

std::string figure(double v, const char* format = "%.0f") {
  if (v < 0) return "n/a";
  char buf[40];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void report(const options& o, const throughput_result* t, const latency_result* l,
            const std::string& command) {
  // The target's and its reference's names (PostgreSQL's output is unchanged by --target).
  const char* db = o.mariadb ? "MariaDB" : "PostgreSQL";
  const char* ref = o.mariadb ? "LOAD DATA" : "COPY";
  std::printf(
      "\ne2e_bench: Kafka -> sluice run -> %s on one machine (%u cores), "
      "batch.size %d, apply.lanes %d, %d partitions\n",
      db, std::thread::hardware_concurrency(), o.batch_size, o.lanes, o.partitions);
  const double m = t ? static_cast<double>(t->events) / 1e6 : 0;
  double events_s = 0, copy_s = 0;
  if (t) {
    events_s = static_cast<double>(t->events) / t->seconds;
    copy_s = static_cast<double>(t->copy_rows) / t->copy_seconds;
    const double written = t->applied + t->deleted;
    std::printf(
        "\nPhase 1, throughput: %zu %s pre-loaded (%zu messages, %.0f bytes a message), then "
        "sluice started\n",
        t->events, t->describe.c_str(), t->messages,
        t->message_bytes / static_cast<double>(std::max<size_t>(1, t->messages)));
    if (t->hot_keys > 0) {
      std::printf("  mix: %zu inserts, %zu updates (20%% of events on %zu hot keys), %zu deletes\n",
                  t->inserts, t->updates, t->hot_keys, t->deletes);
    } else {
      std::printf("  mix: %zu inserts, %zu updates, %zu deletes%s\n", t->inserts, t->updates,
                  t->deletes,
                  t->messages > t->events ? " (each followed by its tombstone, not an event)" : "");
    }
    std::printf("  produce (librdkafka, acks=all)     %8.1f s   %10.0f events/s\n",
                t->produce_seconds, static_cast<double>(t->events) / t->produce_seconds);
    std::printf("  sluice spawn -> all committed      %8.1f s   (first commit after %.1f s)\n",
                t->seconds, t->first_commit);
    std::printf("  sluice events/s                    %10.0f   (%.0f after the first commit)\n",
                events_s,
                static_cast<double>(t->events) *
                    (1 - static_cast<double>(t->first_commit_messages) /
                             static_cast<double>(std::max<size_t>(1, t->messages))) /
                    (t->seconds - t->first_commit));
    std::printf(
        "  rows written/s                     %10.0f   (%.0f upserts + %.0f deletes "
        "reached %s; %.0f collapsed in merge, %.0f stale)\n",
        written / t->seconds, t->applied, t->deleted, db, t->collapsed, t->stale);
    std::printf("  final rows                         %10lld   (expected %zu)\n",
                static_cast<long long>(t->final_rows), t->live_keys);
    std::printf(
        "  batches applied                    %10.0f   (mean %.3f s in apply, %.1f s "
        "summed over lanes)\n",
        t->batches, t->batches > 0 ? t->batch_apply_seconds / t->batches : 0,
        t->batch_apply_seconds);
    const std::string ref_rows = std::string(ref) + " reference rows/s";
    std::printf("  %-35s%10.0f   (%zu row images, %.1f s", ref_rows.c_str(), copy_s, t->copy_rows,
                t->copy_seconds);
    if (o.mariadb)
      std::printf("; %llu warnings", static_cast<unsigned long long>(t->copy_warnings));
    std::printf(")\n");
    const std::string ratio = std::string("ratio sluice events/s / ") + ref + " rows/s";
    std::printf("  %-36s%9.2f\n", ratio.c_str(), events_s / copy_s);
    std::printf("  CPU s per 1M events: sluice %s, Kafka broker %s, %s %s (same window)\n",
                figure(t->cpu_seconds / m, "%.1f").c_str(),
                figure(t->kafka_cpu < 0 ? -1 : t->kafka_cpu / m, "%.1f").c_str(), db,
                figure(t->postgres_cpu < 0 ? -1 : t->postgres_cpu / m, "%.1f").c_str());
    if (t->postgres_cpu >= 0 && t->copy_postgres_cpu > 0) {
      const double copy_per_m = t->copy_postgres_cpu / (static_cast<double>(t->copy_rows) / 1e6);
      std::printf("  %s CPU s per 1M: sluice %.1f per event, %s %.1f per row; ratio %.2f\n", db,
                  t->postgres_cpu / m, ref, copy_per_m, t->postgres_cpu / m / copy_per_m);
    }
    std::printf("  sluice peak RSS (VmHWM)            %10.0f MB   (exit code %d)\n", t->peak_rss_mb,
                t->exit_code);
    // The machine is shared: what else ran shows how far the figures are from an idle box.
    std::printf(
        "  machine while sluice ran: %.0f%% busy; sluice %.1f, Kafka %s, %s %s, other "
        "processes %.1f CPU s\n",
        100 * t->machine_busy / t->machine_total, t->cpu_seconds,
        figure(t->kafka_cpu, "%.1f").c_str(), db, figure(t->postgres_cpu, "%.1f").c_str(),
        std::max(0.0, t->others_cpu));
    std::printf("  machine while %s ran: %.0f%% busy\n", ref,
                100 * t->copy_machine_busy / t->copy_machine_total);
  }
  if (l) {
    std::printf(
        "\nPhase 2, latency: %lld INSERTs at %d events/s for %d s (10 ms ticks), a "
        "second sluice on a second topic\n",
        static_cast<long long>(l->produced), o.rate, o.seconds);
    std::printf("  pacing: %.2f s for the sends, %d late ticks (>1 ms), worst %.1f ms late\n",
                l->produce_seconds, l->late_ticks, l->max_tick_lag_ms);
    std::printf("  latency p50 / p99 / max            %.0f / %.0f / %.0f ms   (%lld rows)\n",
                l->p50_ms, l->p99_ms, l->max_ms, static_cast<long long>(l->measured));
    std::printf(
        "  sluice CPU at the rate             %10.0f%% of one core (peak RSS %.0f MB; machine "
        "%.0f%% busy)\n",
        100 * l->cpu_seconds / l->window_seconds, l->peak_rss_mb, 100 * l->machine_busy);
    if (o.mariadb) {
      std::printf(
          "  latency = _sluice_updated_at - produce wall-clock time; _sluice_updated_at is "
          "UTC_TIMESTAMP(6) in\n  the batch's upsert, before its commit (MariaDB records no "
          "commit time; batch.max.ms 200).\n");
    } else if (l->to_commit) {
      std::printf(
          "  latency = commit time of the row's transaction (pg_xact_commit_timestamp) - produce\n"
          "  wall-clock time (batch.max.ms 200).\n");
    } else {
      std::printf(
          "  latency = _sluice_updated_at - produce wall-clock time; _sluice_updated_at "
          "is now() in the batch\n  transaction, i.e. its start: the apply transaction "
          "itself is not included (batch.max.ms 200;\n  track_commit_timestamp is off).\n");
    }
  }
  std::printf("\n%9s %8s %9s %9s %11s %6s %10s %8s %7s %7s %7s\n", "events", "seconds", "events/s",
              "rows/s", o.mariadb ? "LOAD rows/s" : "COPY rows/s", "ratio", "CPU s/1M", "RSS MB",
              "p50 ms", "p99 ms", "max ms");
  std::printf("%9s %8s %9s %9s %11s %6s %10s %8s %7s %7s %7s\n",
              t ? std::to_string(t->events).c_str() : "-",
              t ? figure(t->seconds, "%.1f").c_str() : "-", t ? figure(events_s).c_str() : "-",
              t ? figure((t->applied + t->deleted) / t->seconds).c_str() : "-",
              t ? figure(copy_s).c_str() : "-", t ? figure(events_s / copy_s, "%.2f").c_str() : "-",
              t ? figure(t->cpu_seconds / m, "%.1f").c_str() : "-",
              t ? figure(t->peak_rss_mb).c_str() : "-", l ? figure(l->p50_ms).c_str() : "-",
              l ? figure(l->p99_ms).c_str() : "-", l ? figure(l->max_ms).c_str() : "-");
  std::printf("\ncommand: %s\n", command.c_str());
}

int run(int argc, char** argv) {
  const options o = parse(argc, argv);
  const std::string table = unique_name("bench_rows");
  const std::string latency_table = unique_name("bench_latency");
  std::optional<throughput_result> t;
  std::optional<latency_result> l;
  if (o.events > 0) t = run_throughput(o, table);
  if (o.rate > 0 && o.seconds > 0) l = run_latency(o, latency_table);
  report(o, t ? &*t : nullptr, l ? &*l : nullptr, command_line(argc, argv));
  if (!o.keep && o.mariadb) {
    mariadb_bench().exec("DROP TABLE IF EXISTS " + mariadb_bench::table(table) + ", " +
                         mariadb_bench::table(latency_table));
  } else if (!o.keep) {
    execute("DROP TABLE IF EXISTS " + quoted_table(table) + ", " + quoted_table(latency_table));
  }
  return 0;
}

}  // namespace
}  // namespace sluice::testing

int main(int argc, char** argv) {
  try {
    return sluice::testing::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "e2e_bench: %s\n", e.what());
    return 1;
  }
}
