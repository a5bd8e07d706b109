// Fault tests (label `fault`, issue 11): outages that sluice waits out by itself. PostgreSQL
// halted for 90 s mid-stream and before sluice starts, the broker halted and resumed, a
// half-open link to PostgreSQL (pg_fault_proxy's stall mode), an outage that begins during a
// rebalance; and the one case that is not waited out, a login the server refuses.
//
// An outage is `postgres.sh halt` / `kafka.sh halt` (the service stops, its data, port and
// run-dir files stay) and `resume`. While PostgreSQL is unreachable a member must stay up in
// DEGRADED (/readyz 503, /healthz 200), keep its group membership, and return to RUNNING on its
// own. Whatever the fault, once the stream is caught up: sluice.offsets holds every partition's
// high watermark, and the replica equals the state the produced history implies (every account
// at its last version, every ledger row once).

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/cdc_stream_producer.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"
#include "tests/sinks/pg_fault_proxy.h"

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

// Halts a service (`<service>.sh halt`: stopped, data and address kept) for the guard's life.
// resume() ends the outage; the destructor resumes the service whatever happened, since the
// tests after this one share it.
class service_outage {
 public:
  explicit service_outage(const std::string& service) {
    const char* dir = std::getenv("SLUICE_SERVICES_DIR");
    REQUIRE_MESSAGE(dir, "SLUICE_SERVICES_DIR is not set (run through ctest)");
    _script = std::string(dir) + "/" + service + ".sh";
    REQUIRE_MESSAGE(script("halt") == 0, _script << " halt failed");
    _halted = true;
    _since = clock_type::now();
  }
  ~service_outage() {
    if (_halted && script("resume") != 0) MESSAGE(_script << " resume failed");
  }
  service_outage(const service_outage&) = delete;
  service_outage& operator=(const service_outage&) = delete;

  void resume() {
    if (!_halted) return;
    _halted = false;
    REQUIRE_MESSAGE(script("resume") == 0, _script << " resume failed");
  }
  // Seconds since the service was halted.
  double seconds() const { return seconds_since(_since); }
  clock_type::time_point since() const { return _since; }

 private:
  // Runs `<service>.sh verb` (its messages go to the test's stderr); its exit code. Never
  // throws: the destructor uses it.
  int script(const std::string& verb) const {
    const int rc = std::system(("\"" + _script + "\" " + verb + " >&2").c_str());
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
  }

  std::string _script;
  bool _halted = false;
  clock_type::time_point _since;
};

// A member's HTTP surface (metrics.listen): status codes, the state in /status, metric samples.
// An unreachable server reads as status 0, state "" and samples -1.
class http_probe {
 public:
  explicit http_probe(uint16_t port) : _port(port) {}
  uint16_t port() const { return _port; }

  http_response get(const std::string& path) const {
    try {
      return http_request(_port, "GET", path);
    } catch (const std::exception&) {
      return {};
    }
  }
  int code(const std::string& path) const { return get(path).status; }
  // The connector's state in /status ("RUNNING", "DEGRADED", ...).
  std::string state() const {
    const std::string body = get("/status").body;
    const std::string key = "\"state\":\"";
    const size_t at = body.find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size();
    return body.substr(begin, body.find('"', begin) - begin);
  }
  // The value of the first sample line of /metrics that starts with prefix.
  double metric(const std::string& prefix) const {
    std::istringstream in(get("/metrics").body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(line.rfind(' ') + 1));
    }
    return -1;
  }
  std::string summary() const {
    return "state " + state() + ", /readyz " + std::to_string(code("/readyz")) + ", /healthz " +
           std::to_string(code("/healthz"));
  }

 private:
  uint16_t _port;
};

// A member running: a sluice process and its HTTP probe.
struct member {
  member(const std::string& config, uint16_t port)
      : http(port), process(std::make_unique<sluice_process>(config, "sluice_outage")) {}
  http_probe http;
  std::unique_ptr<sluice_process> process;

  bool running_ready() const { return http.code("/readyz") == 200 && http.state() == "RUNNING"; }
  // Polls until /status says `state` (false at the timeout, or at once if the process exited).
  bool wait_state(const std::string& state, std::chrono::seconds timeout) {
    wait_until([&] { return http.state() == state || !process->running(); }, timeout);
    return http.state() == state;
  }
  // Polls until RUNNING and ready, as wait_state.
  bool wait_ready(std::chrono::seconds timeout) {
    wait_until([&] { return running_ready() || !process->running(); }, timeout);
    return running_ready();
  }
};

// What a member showed while a dependency was down, sampled twice a second: it must run, say
// DEGRADED, answer /readyz 503 and /healthz 200 all along.
struct outage_record {
  int samples = 0;
  std::vector<std::string> anomalies;  // the first few samples that broke that

  bool clean() const { return anomalies.empty() && samples > 0; }
  std::string text() const {
    std::string out = std::to_string(samples) + " samples";
    for (const std::string& a : anomalies)
      out += "; " + a;
    return out;
  }
};

// Waits (up to `within`) for the member to say DEGRADED, then samples it until `until`.
outage_record observe_degraded(member& m, std::chrono::seconds within,
                               clock_type::time_point until) {
  const auto started = clock_type::now();
  REQUIRE_MESSAGE(m.wait_state("DEGRADED", within), "never DEGRADED (" << m.http.summary() << ")\n"
                                                                       << m.process->log());
  MESSAGE("DEGRADED after " << seconds_since(started) << " s");
  outage_record r;
  while (clock_type::now() < until) {
    ++r.samples;
    const std::string state = m.http.state();
    const int ready = m.http.code("/readyz");
    const int health = m.http.code("/healthz");
    const bool up = m.process->running();
    if ((state != "DEGRADED" || ready != 503 || health != 200 || !up) && r.anomalies.size() < 5) {
      r.anomalies.push_back("at " + std::to_string(static_cast<int>(seconds_since(started))) +
                            " s: state '" + state + "', /readyz " + std::to_string(ready) +
                            ", /healthz " + std::to_string(health) +
                            (up ? "" : ", the process exited"));
    }
    if (!up) break;
    std::this_thread::sleep_for(500ms);
  }
  return r;
}

// SELECT columns FROM every partition's table of `base`.
std::string select_all(const std::string& columns, const std::string& base) {
  std::string sql;
  for (int32_t p = 0; p < partitions; ++p) {
    sql += (sql.empty() ? "" : " UNION ALL ") + std::string("SELECT ") + columns +
           " FROM public.\"" + table_of(base, p) + "\"";
  }
  return sql;
}

// One scenario's stream: a fresh topic, a continuous Datastream history produced into it
// (stream_producer), the configs of its members, and the checks every scenario ends with.
class outage_stream {
 public:
  explicit outage_stream(const std::string& name)
      : _topic(unique_name("cdc_" + name)),
        _connector(unique_name("outage_" + name)),
        _accounts(unique_name(name + "_acc")),
        _ledger(unique_name(name + "_led")) {
    create_topic(_topic, partitions);
    _producer = std::make_unique<stream_producer>(kafka_bootstrap(), _topic, partitions, _accounts,
                                                  _ledger);
  }

  const std::string& topic() const { return _topic; }
  const std::string& connector() const { return _connector; }
  stream_producer& producer() { return *_producer; }

  // A member's config: HTTP on `port`; `postgres` holds extra `postgres:` keys (indented two
  // spaces) and `kafka` extra `kafka:` keys; `dsn` replaces the DSN when not empty.
  std::string config(uint16_t port, const std::string& postgres = "", const std::string& kafka = "",
                     const std::string& dsn = "") const {
    std::string cfg = basic_config(_connector, _topic, "datastream", "apply.lanes: 2\n", 200);
    const auto replace = [&](const std::string& what, const std::string& with) {
      const size_t at = cfg.find(what);
      REQUIRE_MESSAGE(at != std::string::npos, what << " not in\n" << cfg);
      cfg.replace(at, what.size(), with);
    };
    replace("metrics:\n  listen: \"\"\n",
            "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
    replace("  dsn: \"" + postgres_dsn() + "\"\n",
            "  dsn: \"" + (dsn.empty() ? postgres_dsn() : dsn) + "\"\n" + postgres);
    const std::string anchor = "  heartbeat.interval.ms: 500\n";
    replace(anchor, anchor + kafka);
    return cfg;
  }

  // 100 messages a second from the producer's thread, until finish_producing().
  void start_producing() { _producer->start(10, 100ms); }

  // Ends the stream (a few more waves), checks that every message was delivered once, and
  // returns the high watermarks.
  std::map<int32_t, int64_t> finish_producing() {
    _producer->finish(5);
    REQUIRE(_producer->failures() == 0);
    const std::map<int32_t, int64_t> hw = _producer->high_watermarks();
    int64_t sum = 0;
    for (const auto& [_, v] : hw)
      sum += v;
    // Idempotent producer: the log holds each message once, so the expected state is exactly
    // what the partitions hold.
    REQUIRE(sum == _producer->produced());
    REQUIRE(_producer->delivered_per_partition() == hw);
    return hw;
  }

  // The next offsets sluice.offsets holds for this stream (empty when it cannot be read).
  std::map<int32_t, int64_t> stored_offsets() const {
    std::map<int32_t, int64_t> out;
    try {
      for (auto& r : query("SELECT partition, coalesce(next_offset, 0) FROM sluice.offsets WHERE "
                           "connector = '" +
                           _connector + "' AND topic = '" + _topic + "'")) {
        out[std::stoi(str(r[0]))] = std::stoll(str(r[1]));
      }
    } catch (const std::exception&) {
      out.clear();  // no state schema yet, or PostgreSQL is down
    }
    return out;
  }

  // Waits until sluice.offsets holds the high watermarks; a failure shows the members' logs.
  void wait_caught_up(const std::map<int32_t, int64_t>& hw, const std::vector<member*>& members,
                      std::chrono::seconds timeout = 120s) {
    const auto started = clock_type::now();
    const bool done = wait_until([&] { return stored_offsets() == hw; }, timeout);
    std::string logs;
    for (member* m : members)
      logs += "--- member (" + m->http.summary() + ") ---\n" + m->process->log();
    REQUIRE_MESSAGE(done, "sluice.offsets never reached the high watermarks\n" << logs);
    MESSAGE("caught up " << seconds_since(started) << " s after the last message");
  }

  // The replica equals the state the produced history implies.
  void check_replica() const {
    const expected_state& want = _producer->expected();
    std::map<int64_t, int64_t> got;
    for (auto& r : query(select_all("id, version, note", _accounts))) {
      got[std::stoll(str(r[0]))] = std::stoll(str(r[1]));
      CHECK(str(r[2]) == "v" + str(r[1]));
    }
    CHECK(got.size() == want.accounts.size());
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
      if (!want.accounts.contains(id) && !wrong++) {
        first_wrong = "account " + std::to_string(id) + " should be deleted";
      }
    }
    CHECK_MESSAGE(wrong == 0, wrong << " wrong account row(s); first: " << first_wrong);

    const auto ledger = query(
        "SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(sum(amount), 0) "
        "FROM (" +
        select_all("id, amount", _ledger) + ") AS l");
    int64_t ids = 0;
    for (int64_t id : want.ledger)
      ids += id;
    CHECK(str(ledger[0][0]) == std::to_string(want.ledger.size()));
    CHECK(str(ledger[0][1]) == std::to_string(want.ledger.size()));
    CHECK(str(ledger[0][2]) == std::to_string(ids));
    CHECK(str(ledger[0][3]) == std::to_string(ids * 7));
  }

  // The end every scenario shares: the stream finished, sluice caught up with it, the members
  // RUNNING, stopped with exit code 0 and without FAILED in their logs; the offsets and the
  // replica exact. check_end: the same once the stream was finished (hw: its watermarks).
  void finish_and_check(const std::vector<member*>& members) {
    check_end(finish_producing(), members);
  }
  void check_end(const std::map<int32_t, int64_t>& hw, const std::vector<member*>& members) {
    wait_caught_up(hw, members);
    for (member* m : members) {
      CHECK_MESSAGE(m->wait_ready(30s), m->http.summary() << "\n" << m->process->log());
    }
    for (member* m : members) {
      const std::string log = m->process->log();
      CHECK_MESSAGE(m->process->stop() == 0, log);
      CHECK_MESSAGE(occurrences(log, "FAILED:") == 0, log);
    }
    CHECK(stored_offsets() == hw);
    check_replica();
  }

 private:
  std::string _topic, _connector, _accounts, _ledger;
  std::unique_ptr<stream_producer> _producer;
};

// Waits until a new member is RUNNING and has claimed every partition it owns.
void wait_running(member& m, std::chrono::seconds timeout = 60s) {
  REQUIRE_MESSAGE(m.wait_ready(timeout), m.http.summary() << "\n" << m.process->log());
}

}  // namespace

TEST_CASE(
    "PostgreSQL halted for 90 s mid-stream: the same process waits in DEGRADED, then "
    "catches up exactly") {
  outage_stream s("pgo_mid");
  const uint16_t port = free_port();
  member m(s.config(port), port);
  s.start_producing();
  wait_running(m);
  REQUIRE(wait_until([&] { return !s.stored_offsets().empty(); }, 60s));
  const pid_t pid = m.process->pid();
  std::this_thread::sleep_for(3s);

  {
    service_outage outage("postgres");
    const outage_record during = observe_degraded(m, 45s, outage.since() + 90s);
    CHECK_MESSAGE(during.clean(), during.text() << "\n" << m.process->log());
    CHECK(m.http.metric("sluice_postgres_up") == 0);
    CHECK(m.http.metric("sluice_target_up{target=\"postgres\"}") == 0);
    CHECK(m.http.metric("sluice_degraded{dependency=\"postgres\"}") == 1);
    CHECK(m.http.metric("sluice_state{state=\"DEGRADED\"}") == 1);
    outage.resume();
    MESSAGE("PostgreSQL was down " << outage.seconds() << " s");
  }
  const auto resumed = clock_type::now();
  wait_running(m, 120s);
  MESSAGE("RUNNING again " << seconds_since(resumed) << " s after PostgreSQL came back");
  CHECK(m.process->running());
  CHECK(m.process->pid() == pid);
  CHECK(m.http.metric("sluice_postgres_up") == 1);
  CHECK(m.http.metric("sluice_target_up{target=\"postgres\"}") == 1);
  CHECK_MESSAGE(m.http.metric("sluice_postgres_reconnects_total") > 0, m.http.get("/metrics").body);
  CHECK(m.http.metric("sluice_target_reconnects_total{target=\"postgres\"}") ==
        m.http.metric("sluice_postgres_reconnects_total"));
  const std::string log = m.process->log();
  CHECK_MESSAGE(occurrences(log, "MAXPOLL") == 0, log);
  // One member that kept its group membership: no partition was ever released.
  CHECK_MESSAGE(occurrences(log, "released " + s.topic()) == 0, log);
  s.finish_and_check({&m});
}

TEST_CASE(
    "PostgreSQL down when sluice starts and for 90 s after: it waits in DEGRADED, then "
    "catches up exactly") {
  outage_stream s("pgo_start");
  const uint16_t port = free_port();
  const std::string config = s.config(port);
  s.start_producing();
  std::unique_ptr<member> m;
  {
    service_outage outage("postgres");
    m = std::make_unique<member>(config, port);
    const auto started = clock_type::now();
    const outage_record during = observe_degraded(*m, 45s, started + 90s);
    CHECK_MESSAGE(during.clean(), during.text() << "\n" << m->process->log());
    CHECK(m->http.metric("sluice_postgres_up") == 0);
    outage.resume();
    MESSAGE("sluice ran " << seconds_since(started) << " s without PostgreSQL");
  }
  const auto resumed = clock_type::now();
  wait_running(*m, 120s);
  MESSAGE("RUNNING " << seconds_since(resumed) << " s after PostgreSQL came up");
  CHECK(m->process->running());
  CHECK(m->http.metric("sluice_postgres_up") == 1);
  CHECK_MESSAGE(occurrences(m->process->log(), "MAXPOLL") == 0, m->process->log());
  s.finish_and_check({m.get()});
}

TEST_CASE("the broker halted and resumed mid-stream: sluice stays up and catches up exactly") {
  outage_stream s("kafka_out");
  const uint16_t port = free_port();
  member m(s.config(port), port);
  s.start_producing();
  wait_running(m);
  REQUIRE(wait_until([&] { return !s.stored_offsets().empty(); }, 60s));
  std::this_thread::sleep_for(3s);
  {
    service_outage outage("kafka");
    // Liveness all along; the state is free (DEGRADED or RUNNING with nothing to do).
    std::map<std::string, int> states;
    std::vector<std::string> anomalies;
    while (outage.seconds() < 15) {
      const int health = m.http.code("/healthz");
      ++states[m.http.state()];
      if ((health != 200 || !m.process->running()) && anomalies.size() < 5) {
        anomalies.push_back("at " + std::to_string(static_cast<int>(outage.seconds())) +
                            " s: /healthz " + std::to_string(health) +
                            (m.process->running() ? "" : ", the process exited"));
      }
      std::this_thread::sleep_for(500ms);
    }
    std::string seen;
    for (const auto& [state, n] : states)
      seen += " " + (state.empty() ? "<none>" : state) + " x" + std::to_string(n);
    MESSAGE("states while the broker was down:" << seen);
    CHECK_MESSAGE(anomalies.empty(), anomalies.front() << "\n" << m.process->log());
    outage.resume();
  }
  wait_running(m, 120s);
  // The producer is idempotent with acks=all: it rode the outage out without a failure
  // (finish_producing checks it and that the log holds every message once).
  s.finish_and_check({&m});
}

TEST_CASE(
    "a half-open link to PostgreSQL is cut after round.trip.timeout and sluice goes on "
    "through a new connection") {
  outage_stream s("halfopen");
  std::string pg_host;
  uint16_t pg_port = 0;
  REQUIRE(parse_dsn_host_port(postgres_dsn(), pg_host, pg_port));
  pg_fault_proxy proxy(pg_host, pg_port);  // before the member: outlives it
  const uint16_t port = free_port();
  // The server ends what the stalled sessions left open (idle in transaction, holding row and
  // advisory locks) after 20 s; until then the new sessions meet lock timeouts and retry.
  const std::string postgres_keys =
      "  round.trip.timeout: 5s\n"
      "  statement.timeout: 3s\n"
      "  lock.timeout: 3s\n"
      "  idle.in.transaction.timeout: 20s\n";
  member m(s.config(port, postgres_keys, "", proxy.with_proxy(postgres_dsn())), port);
  s.start_producing();
  wait_running(m);
  REQUIRE(wait_until([&] { return !s.stored_offsets().empty(); }, 60s));
  std::this_thread::sleep_for(3s);

  const int before = proxy.connections_accepted();
  proxy.stall(true);
  const auto stalled = clock_type::now();
  REQUIRE_MESSAGE(wait_until([&] { return proxy.connections_accepted() > before; }, 60s),
                  "no new connection after the link stalled\n"
                      << m.process->log());
  const double detected = seconds_since(stalled);
  MESSAGE("a new connection " << detected << " s after the link stalled (round.trip.timeout 5 s)");
  CHECK(detected <= 20);
  std::this_thread::sleep_for(5s);  // more of the stream, through the new connections only

  // The old connections stay hung until sluice caught up.
  const std::map<int32_t, int64_t> hw = s.finish_producing();
  s.wait_caught_up(hw, {&m}, 180s);
  CHECK(m.process->running());
  CHECK_MESSAGE(m.wait_ready(30s), m.http.summary());
  CHECK_MESSAGE(m.http.metric("sluice_postgres_reconnects_total") > 0, m.http.get("/metrics").body);
  MESSAGE(proxy.connections_accepted()
          << " connections through the proxy, " << before << " before the stall");
  proxy.stall(false);
  s.check_end(hw, {&m});
}

TEST_CASE(
    "an outage that begins during a rebalance: no member is evicted, all end RUNNING, "
    "the replica is exact") {
  outage_stream s("pgo_rebal");
  // A poll interval shorter than the outage: a member whose poll waited for PostgreSQL (a
  // claim, a resync, a commit on revoke) would be evicted by librdkafka (MAXPOLL).
  const std::string kafka_keys = "  max.poll.interval.ms: 10000\n";
  const auto start_member = [&] {
    const uint16_t port = free_port();
    return std::make_unique<member>(s.config(port, "", kafka_keys), port);
  };
  const auto logs = [](const std::vector<member*>& members) {
    std::string out;
    for (member* m : members)
      out += "--- member on port " + std::to_string(m->http.port()) + " ---\n" + m->process->log();
    return out;
  };
  // a and b share the partitions before the outage.
  std::unique_ptr<member> a = start_member();
  s.start_producing();
  wait_running(*a);
  std::unique_ptr<member> b = start_member();
  wait_running(*b);
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        return occurrences(b->process->log(), "claimed " + s.topic()) >= 1 &&
                               a->running_ready() && b->running_ready();
                      },
                      60s),
                  logs({a.get(), b.get()}));
  std::this_thread::sleep_for(2s);

  std::unique_ptr<member> c;
  {
    service_outage outage("postgres");
    REQUIRE_MESSAGE(a->wait_state("DEGRADED", 45s), a->http.summary() << "\n" << logs({a.get()}));
    REQUIRE_MESSAGE(b->wait_state("DEGRADED", 45s), b->http.summary() << "\n" << logs({b.get()}));
    const size_t assigned_before = occurrences(a->process->log(), "consumer: assigned ");
    // During the outage a member joins and one dies: b's partitions go to the others after
    // session.timeout.ms (6 s), so a's consumer takes an assignment while PostgreSQL is down.
    c = start_member();
    b->process->kill9();
    const auto rebalanced = clock_type::now();
    REQUIRE_MESSAGE(wait_until([&] { return c->http.code("/healthz") != 0; }, 30s),
                    logs({c.get()}));  // its HTTP server is up
    std::vector<std::string> anomalies;
    std::map<std::string, int> states_c;
    while (seconds_since(rebalanced) < 30) {  // three poll intervals after the rebalance began
      for (member* m : {a.get(), c.get()}) {
        const int health = m->http.code("/healthz");
        if ((health != 200 || !m->process->running()) && anomalies.size() < 5) {
          anomalies.push_back(std::string(m == a.get() ? "a" : "c") + " at " +
                              std::to_string(static_cast<int>(seconds_since(rebalanced))) +
                              " s: /healthz " + std::to_string(health) +
                              (m->process->running() ? "" : ", the process exited"));
        }
      }
      ++states_c[c->http.state()];
      std::this_thread::sleep_for(1s);
    }
    std::string seen;
    for (const auto& [state, n] : states_c)
      seen += " " + (state.empty() ? "<none>" : state) + " x" + std::to_string(n);
    const bool c_joined = occurrences(c->process->log(), "consumer: assigned ") > 0;
    MESSAGE("the new member's states during the outage:"
            << seen << "; it " << std::string(c_joined ? "joined" : "did not join")
            << " the group while PostgreSQL was down");
    CHECK_MESSAGE(anomalies.empty(), anomalies.front() << "\n" << logs({a.get(), c.get()}));
    CHECK(a->http.state() == "DEGRADED");
    // The rebalance went through while PostgreSQL was down: a took an assignment.
    CHECK_MESSAGE(occurrences(a->process->log(), "consumer: assigned ") > assigned_before,
                  logs({a.get(), c.get()}));
    outage.resume();
  }
  wait_running(*a, 120s);
  wait_running(*c, 120s);
  // The new member gets partitions and claims them once PostgreSQL is back. Cooperative-sticky
  // hands them over in two rounds: the first gives c nothing while a revokes (c logs "assigned 0
  // partition(s)"), the second gives it what a let go, so c is RUNNING before it owns any.
  CHECK_MESSAGE(
      wait_until([&] { return occurrences(c->process->log(), "claimed " + s.topic()) >= 1; }, 60s),
      logs({a.get(), c.get()}));
  const std::map<int32_t, int64_t> hw = s.finish_producing();
  s.wait_caught_up(hw, {a.get(), c.get()});
  for (member* m : {a.get(), b.get(), c.get()}) {
    const std::string log = m->process->log();
    CHECK_MESSAGE(occurrences(log, "MAXPOLL") == 0, log);
  }
  s.check_end(hw, {a.get(), c.get()});
}

TEST_CASE("a login the server refuses makes sluice FAILED at once, with the server's reason") {
  outage_stream s("login");
  const std::string dsn = postgres_dsn();
  struct refused {
    std::string what, dsn, reason;
  };
  std::string no_role = dsn, no_database = dsn;
  no_role.replace(no_role.find("://sluice@"), 10, "://nosuch_role@");
  no_database.replace(no_database.rfind("/replica"), 8, "/nosuch_db");
  for (const refused& r :
       {refused{"a role that does not exist", no_role, "role \"nosuch_role\" does not exist"},
        refused{"a database that does not exist", no_database,
                "database \"nosuch_db\" does not exist"}}) {
    INFO(r.what);
    const uint16_t port = free_port();
    member m(s.config(port, "", "", r.dsn), port);
    const auto started = clock_type::now();
    REQUIRE_MESSAGE(m.wait_state("FAILED", 30s), m.http.summary() << "\n" << m.process->log());
    const double failed_after = seconds_since(started);
    MESSAGE(r.what << ": FAILED after " << failed_after << " s");
    CHECK(failed_after <= 15);
    // last_error, unescaped (the server's message quotes the name).
    std::string status = m.http.get("/status").body;
    for (size_t at; (at = status.find("\\\"")) != std::string::npos;)
      status.replace(at, 2, "\"");
    const size_t last_error = status.find("\"last_error\":");
    REQUIRE_MESSAGE(last_error != std::string::npos, status);
    CHECK_MESSAGE(status.find(r.reason, last_error) != std::string::npos, status);
    CHECK(m.http.code("/healthz") == 503);
    CHECK(m.http.code("/readyz") == 503);
    // Not retried: it stays FAILED, up until stopped, and says why in its log.
    std::this_thread::sleep_for(3s);
    CHECK(m.process->running());
    CHECK(m.http.state() == "FAILED");
    const std::string log = m.process->log();
    CHECK_MESSAGE(log.find(r.reason) != std::string::npos, log);
    CHECK_MESSAGE(m.process->stop() == 1, log);
  }
}

}  // namespace sluice::testing
