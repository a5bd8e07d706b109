// Fault tests (label `fault`) of the MariaDB target (SPEC §6b, issue 31): sluice killed -9
// mid-stream, the MariaDB server restarted under it, an auto-evolve ALTER queued behind another
// session's metadata lock, two members of one consumer group with a frozen zombie. The models
// are PostgreSQL's datastream_e2e_test.cc (kill -9), pg_outage_fault_test.cc (outages),
// scale_out_fault_test.cc and mock_cluster_fault_test.cc (members, a zombie).
//
// Every scenario runs a continuous Datastream history (cdc_stream_producer.h: accounts inserted,
// updated and deleted again and again, a ledger row per third message) and ends with the same
// proof, on the server's own records (mdb_audit):
//   - nothing lost: sluice.offsets holds every partition's high watermark and the replica
//     equals the state the produced history implies;
//   - nothing applied twice: a BEFORE INSERT trigger on every replica table records each row
//     version the batches propose, in their transactions (a rolled-back batch leaves nothing):
//     a version (accounts) or a ledger id recorded twice is a message applied twice;
//   - the commits chain: an AFTER UPDATE trigger on sluice.offsets records every move of the
//     connector's offsets; per partition the ranges [old, new) follow each other without gap or
//     overlap from the first commit to the high watermark.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/cdc_stream_producer.h"
#include "integration/support/datastream_events.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr int partitions = 4;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

std::string text(const std::optional<std::string>& v) {
  return v.value_or("<null>");
}

int64_t number(const std::optional<std::string>& v) {
  return v ? std::stoll(*v) : 0;
}

// A connection of its own to the fixture's server, for a session that holds something open.
std::unique_ptr<mdb::connection> mariadb_connection(const std::string& program) {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(mariadb_dsn());
  s.program = program;
  s.init = {"SET SESSION time_zone = '+00:00'"};
  return std::make_unique<mdb::connection>(s);
}

// `mariadb.sh <verb>` (its messages go to the test's stderr); its exit code.
int mariadb_script(const std::string& verb) {
  const char* dir = std::getenv("SLUICE_SERVICES_DIR");
  REQUIRE_MESSAGE(dir, "SLUICE_SERVICES_DIR is not set (run through ctest)");
  const int rc = std::system(("\"" + std::string(dir) + "/mariadb.sh\" " + verb + " >&2").c_str());
  return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

// The server's own record of what sluice applied and committed for one connector (see the
// file comment). Lifecycle: construct once sluice created sluice.offsets and before its first
// commit; watch() each replica table once it exists; the destructor drops the triggers.
// Threading: one.
class mdb_audit {
 public:
  // `from`: where each partition's offsets are when the audit begins.
  mdb_audit(std::string connector, std::map<int32_t, int64_t> from)
      : _connector(std::move(connector)), _name(unique_name("audit")), _from(std::move(from)) {
    mariadb_query("CREATE DATABASE IF NOT EXISTS fault_audit");
    mariadb_query(
        "CREATE TABLE IF NOT EXISTS fault_audit.proposals (audit varchar(64) NOT NULL, "
        "tbl varchar(64) NOT NULL, id bigint, version bigint, KEY (audit)) ENGINE=InnoDB");
    mariadb_query(
        "CREATE TABLE IF NOT EXISTS fault_audit.commits (seq bigint NOT NULL AUTO_INCREMENT "
        "PRIMARY KEY, audit varchar(64) NOT NULL, topic varchar(249) NOT NULL, part int NOT NULL, "
        "old_next bigint, new_next bigint, epoch bigint, KEY (audit)) ENGINE=InnoDB");
    mariadb_query("CREATE TRIGGER sluice.`" + _name +
                  "` AFTER UPDATE ON sluice.offsets FOR EACH ROW IF NEW.connector = '" +
                  _connector +
                  "' AND NOT (OLD.next_offset <=> NEW.next_offset) THEN INSERT INTO "
                  "fault_audit.commits (audit, topic, part, old_next, new_next, epoch) VALUES ('" +
                  _name +
                  "', NEW.topic, NEW.`partition`, OLD.next_offset, NEW.next_offset, "
                  "NEW.owner_epoch); END IF");
  }
  ~mdb_audit() {
    try {
      mariadb_query("DROP TRIGGER IF EXISTS sluice.`" + _name + "`");
      for (size_t i = 0; i < _tables.size(); ++i)
        mariadb_query("DROP TRIGGER IF EXISTS public.`" + _name + "_" + std::to_string(i) + "`");
    } catch (...) {
    }
  }
  mdb_audit(const mdb_audit&) = delete;
  mdb_audit& operator=(const mdb_audit&) = delete;

  // Records every row proposed to public.`table` from now on (`version`: whether it has one).
  void watch(const std::string& table, bool version) {
    const std::string trigger = _name + "_" + std::to_string(_tables.size());
    mariadb_query("CREATE TRIGGER public.`" + trigger + "` BEFORE INSERT ON public.`" + table +
                  "` FOR EACH ROW INSERT INTO fault_audit.proposals (audit, tbl, id, version) "
                  "VALUES ('" +
                  _name + "', '" + table + "', NEW.id, " + (version ? "NEW.version" : "NULL") +
                  ")");
    _tables.push_back(table);
  }

  // "table id version ×n" for each row version proposed by more than one committed batch.
  std::vector<std::string> applied_twice() const {
    std::vector<std::string> out;
    for (const auto& r : mariadb_query(
             "SELECT tbl, id, version, count(*) FROM fault_audit.proposals WHERE audit = '" +
             _name + "' GROUP BY 1, 2, 3 HAVING count(*) > 1 ORDER BY 1, 2, 3 LIMIT 20")) {
      out.push_back(text(r[0]) + " id " + text(r[1]) + " version " + text(r[2]) + " x" +
                    text(r[3]));
    }
    return out;
  }
  int64_t proposals() const {
    return number(
        mariadb_query("SELECT count(*) FROM fault_audit.proposals WHERE audit = '" + _name + "'")
            .at(0)
            .at(0));
  }
  int64_t commits() const {
    return number(
        mariadb_query("SELECT count(*) FROM fault_audit.commits WHERE audit = '" + _name + "'")
            .at(0)
            .at(0));
  }

  // What breaks the chain of the topic's partitions from where they were when the audit began
  // to the high watermarks; empty when each message was committed exactly once.
  std::vector<std::string> chain_violations(const std::string& topic,
                                            const std::map<int32_t, int64_t>& hw) const {
    // partition → where its chain is (0: nothing committed, as NULL)
    std::map<int32_t, int64_t> at = _from;
    std::vector<std::string> out;
    for (const auto& r :
         mariadb_query("SELECT part, old_next, new_next, epoch FROM fault_audit.commits WHERE "
                       "audit = '" +
                       _name + "' AND topic = '" + topic + "' ORDER BY seq")) {
      const int32_t p = static_cast<int32_t>(number(r[0]));
      const int64_t old = number(r[1]), next = number(r[2]);
      int64_t& chain = at[p];
      if (old != chain && out.size() < 10) {
        out.push_back("partition " + std::to_string(p) + ": a commit from " + std::to_string(old) +
                      " where the chain was at " + std::to_string(chain) + " (epoch " + text(r[3]) +
                      ")");
      }
      if (next <= old && out.size() < 10) {
        out.push_back("partition " + std::to_string(p) + ": backwards " + text(r[1]) + " -> " +
                      text(r[2]));
      }
      chain = next;
    }
    for (const auto& [p, high] : hw) {
      const auto it = at.find(p);
      const int64_t end = it == at.end() ? 0 : it->second;
      if (end != high) {
        out.push_back("partition " + std::to_string(p) + ": the chain ends at " +
                      std::to_string(end) + ", the high watermark is " + std::to_string(high));
      }
    }
    return out;
  }

 private:
  std::string _connector;
  std::string _name;
  std::map<int32_t, int64_t> _from;
  std::vector<std::string> _tables;
};

// A member's HTTP surface (metrics.listen): status codes and the state in /status. An
// unreachable server reads as status 0 and state "".
class http_probe {
 public:
  explicit http_probe(uint16_t port) : _port(port) {}
  http_response get(const std::string& path) const {
    try {
      return http_request(_port, "GET", path);
    } catch (const std::exception&) {
      return {};
    }
  }
  int code(const std::string& path) const { return get(path).status; }
  std::string state() const {
    const std::string body = get("/status").body;
    const std::string key = "\"state\":\"";
    const size_t at = body.find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size();
    return body.substr(begin, body.find('"', begin) - begin);
  }
  std::string summary() const {
    return "state " + state() + ", /readyz " + std::to_string(code("/readyz")) + ", /healthz " +
           std::to_string(code("/healthz"));
  }

 private:
  uint16_t _port;
};

// A sluice process and its HTTP probe.
struct member {
  member(const std::string& config, uint16_t port)
      : http(port), process(std::make_unique<sluice_process>(config, "sluice_mdb_fault")) {}
  http_probe http;
  std::unique_ptr<sluice_process> process;

  bool running_ready() const { return http.code("/readyz") == 200 && http.state() == "RUNNING"; }
  bool wait_state(const std::string& state, std::chrono::seconds timeout) {
    wait_until([&] { return http.state() == state || !process->running(); }, timeout);
    return http.state() == state;
  }
  bool wait_ready(std::chrono::seconds timeout) {
    wait_until([&] { return running_ready() || !process->running(); }, timeout);
    return running_ready();
  }
  // The partitions of `topic` this member owns by its log: claimed and not released or lost
  // since (a commit refused during a rebalance can lose a member's whole assignment).
  std::set<int32_t> owned(const std::string& topic) const {
    std::set<int32_t> out;
    const std::string log = process->log();
    const std::regex line("(claimed|released|lost) " + topic + "\\[([0-9]+)\\]");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
      const int32_t p = std::stoi((*it)[2]);
      if ((*it)[1] == "claimed")
        out.insert(p);
      else
        out.erase(p);
    }
    return out;
  }
};

// One scenario's stream: a fresh topic of 4 partitions, the continuous history produced into
// it, the members' configs, and the checks every scenario ends with.
class mdb_stream {
 public:
  explicit mdb_stream(const std::string& name)
      : _topic(unique_name("mdb_" + name)),
        _connector(unique_name("mdbf_" + name)),
        _accounts(unique_name(name + "_acc")),
        _ledger(unique_name(name + "_led")) {
    create_topic(_topic, partitions);
    _producer = std::make_unique<stream_producer>(kafka_bootstrap(), _topic, partitions, _accounts,
                                                  _ledger);
  }

  const std::string& topic() const { return _topic; }
  const std::string& connector() const { return _connector; }
  stream_producer& producer() { return *_producer; }
  mdb_audit& audit() { return *_audit; }
  const std::string& accounts() const { return _accounts; }
  const std::string& ledger() const { return _ledger; }

  // A member's config: batches of 100, HTTP on `port` when not 0, `extra` YAML appended.
  std::string config(uint16_t port = 0, const std::string& extra = "") const {
    std::string cfg = mariadb_config(_connector, _topic, "datastream", extra, 100);
    return port ? with_metrics_listen(cfg, port) : cfg;
  }

  // Before the scenario: a first sluice creates the replica tables from the first waves of
  // the history and commits them; once it stopped, the server's audit begins (triggers are
  // DDL: created while sluice writes, they would race its reads of the tables' shapes — see
  // the report of issue 31), then the history goes on at per_wave messages every `pause`.
  void start(int per_wave, std::chrono::milliseconds pause) {
    _producer->start(per_wave, pause);
    std::vector<std::string> tables;
    for (int32_t p = 0; p < partitions; ++p) {
      tables.push_back(table_of(_accounts, p));
      tables.push_back(table_of(_ledger, p));
    }
    const auto all_exist = [&] {
      std::string in;
      for (const std::string& t : tables)
        in += (in.empty() ? "'" : ", '") + t + "'";
      return number(mariadb_query("SELECT count(*) FROM information_schema.tables WHERE "
                                  "table_schema = 'public' AND table_name IN (" +
                                  in + ")")
                        .at(0)
                        .at(0)) == static_cast<int64_t>(tables.size());
    };
    {
      sluice_process first(config());
      REQUIRE_MESSAGE(wait_until(all_exist, 60s), first.log());
      _producer->pause();
      std::this_thread::sleep_for(300ms);  // the wave under way is delivered
      REQUIRE_MESSAGE(wait_until([&] { return committed() >= _producer->produced(); }, 60s),
                      first.log());
      CHECK(first.stop() == 0);
    }
    _audit = std::make_unique<mdb_audit>(_connector, stored_offsets());
    for (int32_t p = 0; p < partitions; ++p) {
      _audit->watch(table_of(_accounts, p), true);
      _audit->watch(table_of(_ledger, p), false);
    }
    _producer->resume();
  }

  // Ends the history (a few more waves) and returns the high watermarks; the log holds each
  // message once (an idempotent producer).
  std::map<int32_t, int64_t> finish_producing() {
    _producer->finish(5);
    REQUIRE(_producer->failures() == 0);
    const std::map<int32_t, int64_t> hw = _producer->high_watermarks();
    int64_t sum = 0;
    for (const auto& [_, v] : hw)
      sum += v;
    REQUIRE(sum == _producer->produced());
    return hw;
  }

  // The next offsets sluice.offsets holds for this stream (empty when unreadable).
  std::map<int32_t, int64_t> stored_offsets() const {
    std::map<int32_t, int64_t> out;
    try {
      for (const auto& r :
           mariadb_query("SELECT `partition`, coalesce(next_offset, 0) FROM sluice.offsets WHERE "
                         "connector = '" +
                         _connector + "' AND topic = '" + _topic + "'"))
        out[static_cast<int32_t>(number(r[0]))] = number(r[1]);
    } catch (const std::exception&) {
      out.clear();  // MariaDB is down
    }
    return out;
  }
  int64_t committed() const {
    int64_t sum = 0;
    for (const auto& [_, v] : stored_offsets())
      sum += v;
    return sum;
  }

  void wait_caught_up(const std::map<int32_t, int64_t>& hw, const std::string& logs,
                      std::chrono::seconds timeout = 120s) {
    const auto started = clock_type::now();
    REQUIRE_MESSAGE(wait_until([&] { return stored_offsets() == hw; }, timeout),
                    "sluice.offsets never reached the high watermarks\n"
                        << logs);
    MESSAGE("caught up " << seconds_since(started) << " s after the last message");
  }

  // Nothing lost, nothing applied twice, the commits chained; no dead letters.
  void check(const std::map<int32_t, int64_t>& hw) const {
    CHECK(stored_offsets() == hw);
    const std::vector<std::string> twice = _audit->applied_twice();
    CHECK_MESSAGE(twice.empty(), twice.size() << " row version(s) applied twice; first: "
                                              << (twice.empty() ? "" : twice.front()));
    const std::vector<std::string> chain = _audit->chain_violations(_topic, hw);
    CHECK_MESSAGE(chain.empty(), chain.front());
    MESSAGE(_audit->proposals() << " row versions proposed, " << _audit->commits()
                                << " offset moves audited");
    CHECK(_audit->proposals() > 0);
    CHECK_MESSAGE(mariadb_dead_letter_count(_topic) == 0, mariadb_dead_letter_reasons(_topic));
    check_replica();
  }

 private:
  std::string select_all(const std::string& columns, const std::string& base) const {
    std::string sql;
    for (int32_t p = 0; p < partitions; ++p) {
      sql += (sql.empty() ? "" : " UNION ALL ") + std::string("SELECT ") + columns +
             " FROM public.`" + table_of(base, p) + "`";
    }
    return sql;
  }

  // The replica equals the state the produced history implies (untyped JSON numbers are
  // decimal(65,30) on MariaDB: cast).
  void check_replica() const {
    const expected_state& want = _producer->expected();
    std::map<int64_t, int64_t> got;
    for (const auto& r : mariadb_query(
             select_all("CAST(id AS SIGNED), CAST(version AS SIGNED), note", _accounts))) {
      got[number(r[0])] = number(r[1]);
      CHECK(text(r[2]) == "v" + text(r[1]));
    }
    int wrong = 0;
    std::string first_wrong;
    for (const auto& [id, version] : want.accounts) {
      const auto it = got.find(id);
      if ((it == got.end() || it->second != version) && !wrong++) {
        first_wrong = "account " + std::to_string(id) + ": want version " +
                      std::to_string(version) + ", got " +
                      (it == got.end() ? "no row" : std::to_string(it->second));
      }
    }
    for (const auto& [id, version] : got) {
      if (!want.accounts.contains(id) && !wrong++)
        first_wrong = "account " + std::to_string(id) + " should be deleted";
    }
    CHECK(got.size() == want.accounts.size());
    CHECK_MESSAGE(wrong == 0, wrong << " wrong account row(s); first: " << first_wrong);

    const auto ledger = mariadb_query(
        "SELECT count(*), count(DISTINCT id), CAST(coalesce(sum(id), 0) AS SIGNED), "
        "CAST(coalesce(sum(amount), 0) AS SIGNED) FROM (" +
        select_all("id, amount", _ledger) + ") AS l");
    int64_t ids = 0;
    for (int64_t id : want.ledger)
      ids += id;
    CHECK(number(ledger[0][0]) == static_cast<int64_t>(want.ledger.size()));
    CHECK(number(ledger[0][1]) == static_cast<int64_t>(want.ledger.size()));
    CHECK(number(ledger[0][2]) == ids);
    CHECK(number(ledger[0][3]) == ids * 7);
  }

  std::string _topic, _connector, _accounts, _ledger;
  std::unique_ptr<mdb_audit> _audit;           // before the producer: dropped after it stops
  std::unique_ptr<stream_producer> _producer;  // last: joined first
};

// Stops members with SIGTERM: each exits 0 and never said FAILED.
void stop_cleanly(const std::vector<sluice_process*>& members) {
  for (sluice_process* p : members) {
    const std::string log = p->log();
    CHECK_MESSAGE(p->stop() == 0, log);
    CHECK_MESSAGE(occurrences(log, "FAILED") == 0, log);
  }
}

}  // namespace

TEST_CASE("mariadb kill -9 in the middle of a stream neither loses nor applies anything twice") {
  const auto began = clock_type::now();
  mdb_stream s("kill");
  s.start(50, 50ms);
  // About 1,000 messages a second for ~5 s while sluice is killed -9 three times, each kill
  // while it consumes and applies.
  std::mt19937 rng(std::random_device{}());
  int kills_mid_stream = 0;
  std::string logs;
  for (int round = 0; round < 3; ++round) {
    sluice_process p(s.config());
    std::this_thread::sleep_for(std::chrono::milliseconds(800 + rng() % 700));
    const int64_t before = s.committed();
    p.kill9();
    // Mid-stream: sluice had committed some, not all that was produced by then.
    if (before > 0 && before < s.producer().produced()) ++kills_mid_stream;
    logs += p.log();
  }
  CHECK_MESSAGE(kills_mid_stream >= 2, logs);
  const std::map<int32_t, int64_t> hw = s.finish_producing();
  MESSAGE(s.producer().produced() << " messages, " << kills_mid_stream
                                  << " kills mid-stream; restarting");

  sluice_process p(s.config());
  s.wait_caught_up(hw, p.log());
  stop_cleanly({&p});
  // The restarted process read its offsets back from MariaDB: it resumed, it did not start over.
  CHECK(s.audit().commits() > 3);
  s.check(hw);
  MESSAGE("scenario took " << seconds_since(began) << " s");
}

TEST_CASE("mariadb restarted mid-stream: sluice waits in DEGRADED and converges exactly") {
  const auto began = clock_type::now();
  mdb_stream s("restart");
  const uint16_t port = free_port();
  s.start(20, 100ms);  // ~200 messages a second
  member m(s.config(port), port);
  REQUIRE_MESSAGE(m.wait_ready(60s), m.http.summary() << "\n" << m.process->log());
  REQUIRE(wait_until([&] { return s.committed() > 0; }, 60s));
  const pid_t pid = m.process->pid();
  std::this_thread::sleep_for(2s);

  // The server stopped by its pid (a clean InnoDB shutdown; clients see 2013 / 2006, then
  // connection refused), then started again on the same port and data.
  REQUIRE(mariadb_script("halt") == 0);
  const auto halted = clock_type::now();
  struct resume_guard {
    bool halted = true;
    ~resume_guard() {
      if (halted) mariadb_script("resume");
    }
  } guard;
  const bool degraded = m.wait_state("DEGRADED", 30s);
  MESSAGE("DEGRADED " << seconds_since(halted) << " s after the halt");
  CHECK_MESSAGE(degraded, m.http.summary() << "\n" << m.process->log());
  // While down: alive (/healthz 200), not ready (/readyz 503), DEGRADED, never FAILED.
  int samples = 0;
  std::vector<std::string> anomalies;
  while (seconds_since(halted) < 12) {
    ++samples;
    const std::string state = m.http.state();
    const int ready = m.http.code("/readyz"), health = m.http.code("/healthz");
    if ((state != "DEGRADED" || ready != 503 || health != 200 || !m.process->running()) &&
        anomalies.size() < 5) {
      anomalies.push_back(std::to_string(static_cast<int>(seconds_since(halted))) + " s: " + state +
                          ", /readyz " + std::to_string(ready) + ", /healthz " +
                          std::to_string(health));
    }
    std::this_thread::sleep_for(500ms);
  }
  CHECK_MESSAGE(anomalies.empty(), samples << " samples; first anomaly " << anomalies.front()
                                           << "\n"
                                           << m.process->log());
  REQUIRE(mariadb_script("resume") == 0);
  guard.halted = false;
  MESSAGE("MariaDB was down " << seconds_since(halted) << " s");

  const auto resumed = clock_type::now();
  REQUIRE_MESSAGE(m.wait_ready(120s), m.http.summary() << "\n" << m.process->log());
  MESSAGE("RUNNING again " << seconds_since(resumed) << " s after MariaDB came back");
  CHECK(m.process->pid() == pid);  // the same process waited it out
  const std::map<int32_t, int64_t> hw = s.finish_producing();
  s.wait_caught_up(hw, m.process->log());
  CHECK(m.running_ready());
  const std::string log = m.process->log();
  CHECK_MESSAGE(occurrences(log, "MAXPOLL") == 0, log);
  stop_cleanly({m.process.get()});
  s.check(hw);
  MESSAGE("scenario took " << seconds_since(began) << " s");
}

TEST_CASE("mariadb an auto-evolve ALTER behind a metadata lock goes DEGRADED, then converges") {
  const auto began = clock_type::now();
  const std::string topic = unique_name("mdb_mdl");
  const std::string table = unique_name("mdl_rows");
  const std::string connector = unique_name("mdbf_mdl");
  create_topic(topic, 1);
  const std::string t = "public.`" + table + "`";
  const auto change = [&](const std::string& op, uint64_t lsn, int id, const std::string& extra) {
    datastream_event e;
    e.table = table;
    e.change_type = op;
    e.lsn = lsn;
    e.payload_json =
        "\"id\":" + std::to_string(id) + ",\"name\":\"n" + std::to_string(lsn) + "\"" + extra;
    return kafka_record{std::to_string(id), e.json(), -1};
  };
  std::vector<kafka_record> first;
  for (int id = 1; id <= 20; ++id)
    first.push_back(change("INSERT", 100 + id, id, ""));
  produce(topic, first);
  const uint16_t port = free_port();
  member m(
      with_metrics_listen(
          mariadb_config(connector, topic, "datastream",
                         "tables:\n  public." + table + ":\n    column.types: {id: bigint}\n", 100),
          port),
      port);
  REQUIRE_MESSAGE(mariadb_caught_up(connector, 20), m.process->log());
  REQUIRE(m.wait_ready(30s));

  // Another session reads the table inside an open transaction: it holds a shared metadata
  // lock until it commits.
  auto holder = mariadb_connection("sluice:e2e-holder");
  holder->exec("START TRANSACTION");
  CHECK(holder->query("SELECT count(*) FROM " + t).at(0, 0) == std::optional<std::string>("20"));

  // The stream brings a new column: auto.evolve's ALTER queues behind the holder.
  std::vector<kafka_record> second;
  for (int id = 1; id <= 20; ++id)
    second.push_back(change("UPDATE", 200 + id, id, ",\"extra\":\"e" + std::to_string(id) + "\""));
  produce(topic, second);
  const auto produced = clock_type::now();
  const bool degraded = m.wait_state("DEGRADED", 30s);
  MESSAGE("DEGRADED " << seconds_since(produced) << " s after the new column arrived");
  CHECK_MESSAGE(degraded, m.http.summary() << "\n" << m.process->log());
  CHECK(m.http.code("/readyz") == 503);
  CHECK(m.http.code("/healthz") == 200);

  // Meanwhile the table's readers go on: the holder's own reads at once, a new session's after
  // one lock slice at most (an ALTER waiting for its metadata lock queues later readers behind
  // it, for the slice of mariadb.ddl.lock.timeout, 2 s by default).
  double holder_worst = 0, reader_worst = 0;
  for (int i = 0; i < 6; ++i) {
    auto at = clock_type::now();
    holder->query("SELECT count(*) FROM " + t);
    holder_worst = std::max(holder_worst, seconds_since(at));
    at = clock_type::now();
    mariadb_query("SELECT count(*) FROM " + t);
    reader_worst = std::max(reader_worst, seconds_since(at));
    std::this_thread::sleep_for(700ms);
  }
  MESSAGE("slowest read while the ALTER waited: holder " << holder_worst << " s, another session "
                                                         << reader_worst << " s");
  CHECK(holder_worst < 1.0);
  CHECK(reader_worst < 3.5);
  CHECK(m.http.state() == "DEGRADED");
  CHECK(mariadb_committed(connector) == 20);  // nothing of the new batch yet
  const std::string waiting = m.process->log();
  CHECK_MESSAGE(contains(waiting, "waits for its metadata lock"), waiting);

  holder->exec("COMMIT");
  const auto released = clock_type::now();
  REQUIRE_MESSAGE(mariadb_caught_up(connector, 40), m.process->log());
  REQUIRE_MESSAGE(m.wait_ready(30s), m.http.summary() << "\n" << m.process->log());
  MESSAGE("RUNNING and caught up " << seconds_since(released) << " s after the holder committed");
  const auto rows = mariadb_query(
      "SELECT count(*), count(extra), sum(extra = concat('e', id)), "
      "sum(name = concat('n', 200 + id)) FROM " +
      t);
  CHECK(text(rows[0][0]) == "20");
  CHECK(text(rows[0][1]) == "20");
  CHECK(text(rows[0][2]) == "20");
  CHECK(text(rows[0][3]) == "20");
  CHECK(mariadb_dead_letter_count(topic) == 0);
  stop_cleanly({m.process.get()});
  MESSAGE("scenario took " << seconds_since(began) << " s");
}

TEST_CASE(
    "mariadb two members of one group: a rebalance and a fenced zombie lose and double nothing") {
  const auto began = clock_type::now();
  mdb_stream s("group");
  const uint16_t port_a = free_port();
  const uint16_t port_b = free_port();
  s.start(20, 100ms);
  auto a = std::make_unique<member>(s.config(port_a), port_a);
  auto b = std::make_unique<member>(s.config(port_b), port_b);
  // Both apply: the group split the 4 partitions between them.
  REQUIRE_MESSAGE(
      wait_until([&] { return !a->owned(s.topic()).empty() && !b->owned(s.topic()).empty(); }, 60s),
      a->process->log() << "\n---\n"
                        << b->process->log());
  std::this_thread::sleep_for(2s);

  // A rebalance: b leaves (SIGTERM drains it), a takes its partitions over.
  stop_cleanly({b->process.get()});
  REQUIRE_MESSAGE(
      wait_until([&] { return a->owned(s.topic()).size() == static_cast<size_t>(partitions); },
                 60s),
      a->process->log());
  b = std::make_unique<member>(s.config(port_b), port_b);  // back: the group splits again
  REQUIRE_MESSAGE(wait_until([&] { return !b->owned(s.topic()).empty(); }, 60s), b->process->log());
  std::this_thread::sleep_for(2s);

  // A zombie: b's next batch is held inside its transaction at its tables' locks (the rows of
  // sluice.table_locks it locks first), b is frozen there, past the session timeout; a takes
  // b's partitions over with new epochs; woken, b's batch reaches its offsets compare-and-set
  // with the old epoch and is refused.
  const std::set<int32_t> owned = b->owned(s.topic());
  std::string names;
  for (int32_t p : owned) {
    for (const std::string* base : {&s.accounts(), &s.ledger()})
      names += (names.empty() ? "'" : ", '") + table_of(*base, p) + "'";
  }
  REQUIRE(!names.empty());
  auto locker = mariadb_connection("sluice:e2e-locker");
  locker->exec("START TRANSACTION");
  locker->query(
      "SELECT * FROM sluice.table_locks WHERE target_schema = 'public' AND "
      "target_table IN (" +
      names + ") FOR UPDATE");
  const auto waiting_at_lock = [&] {
    return number(mariadb_query("SELECT count(*) FROM information_schema.innodb_trx WHERE "
                                "trx_state = 'LOCK WAIT' AND trx_query LIKE '%table_locks%'")
                      .at(0)
                      .at(0)) > 0;
  };
  const bool held = wait_until(waiting_at_lock, 30s);
  const pid_t zombie = b->process->pid();
  if (held) ::kill(zombie, SIGSTOP);
  s.producer().pause();
  locker->exec("COMMIT");
  REQUIRE_MESSAGE(held, "b's batch never waited at its table locks\n" << b->process->log());
  const bool taken_over = wait_until(
      [&] { return a->owned(s.topic()).size() == static_cast<size_t>(partitions); }, 60s);
  ::kill(zombie, SIGCONT);
  s.producer().resume();
  REQUIRE_MESSAGE(taken_over, a->process->log());
  CHECK_MESSAGE(wait_until([&] { return contains(b->process->log(), "batch abandoned"); }, 30s),
                "the zombie's batch was not refused\n"
                    << b->process->log());
  // It rejoins the group: both apply again.
  CHECK_MESSAGE(wait_until([&] { return b->running_ready(); }, 60s), b->process->log());

  const std::map<int32_t, int64_t> hw = s.finish_producing();
  s.wait_caught_up(hw, a->process->log() + "\n---\n" + b->process->log());
  stop_cleanly({a->process.get(), b->process.get()});
  s.check(hw);
  MESSAGE("scenario took " << seconds_since(began) << " s");
}

}  // namespace sluice::testing
