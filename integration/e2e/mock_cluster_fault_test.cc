// Fault tests (label `fault`) at the Kafka protocol level, with librdkafka's in-process mock
// cluster (three brokers, a six-partition topic) instead of the real broker: OffsetCommit
// errors, coordinator moves, lost assignments (ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID on
// Heartbeat, with JoinGroup and SyncGroup failing on the way back, and a heartbeat answered
// after the session timeout), a member frozen mid-batch that comes back as a stale owner, and
// brokers down and back. `sluice run` runs as a child process against the mock brokers, which
// this process hosts.
//
// Whatever the fault, once the stream is caught up: the replica equals the state the produced
// history implies, sluice.offsets holds every partition's high watermark, the committed offset
// ranges chain without gap or overlap (offset_audit.h), and no row version was applied by two
// committed transactions (apply_audit.h). This complements the real-broker tests; it does not
// replace them (the mock implements the protocol, not Kafka's storage or replication).

#include <doctest/doctest.h>
#include <signal.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/apply_audit.h"
#include "integration/support/cdc_stream_producer.h"
#include "integration/support/mock_kafka_cluster.h"
#include "integration/support/offset_audit.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "sinks/postgres/session/key_locks.h"
#include "sinks/postgres/sql/advisory_lock_space.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;

constexpr int partitions = 6;

std::string str(const std::optional<std::string>& v) {
  return v.value_or("<null>");
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

// application_name tells the members' PostgreSQL sessions apart.
std::string mock_config(const std::string& connector, const std::string& bootstraps,
                        const std::string& topic, const std::string& application_name) {
  std::ostringstream y;
  y << "name: " << connector << "\n"
    << "kafka:\n"
    << "  bootstrap.servers: \"" << bootstraps << "\"\n"
    << "  group.id: " << connector << "\n"
    << "  auto.offset.reset: earliest\n"
    << "  session.timeout.ms: 4000\n"
    << "  heartbeat.interval.ms: 500\n"
    << "  reconnect.backoff.max.ms: 1000\n"
    << "topics: [" << topic << "]\n"
    << "format: datastream\n"
    << "postgres:\n"
    << "  dsn: \"" << postgres_dsn() << (postgres_dsn().find('?') == std::string::npos ? "?" : "&")
    << "application_name=" << application_name << "\"\n"
    << "batch.size: 200\n"
    << "batch.max.ms: 100\n"
    << "apply.lanes: 2\n"
    << "metrics:\n"
    << "  listen: \"\"\n";
  return y.str();
}

int64_t sum(const std::map<int32_t, int64_t>& m) {
  int64_t s = 0;
  for (const auto& [_, v] : m)
    s += v;
  return s;
}

std::map<int32_t, int64_t> stored_offsets(const std::string& connector, const std::string& topic) {
  std::map<int32_t, int64_t> out;
  for (auto& r : query("SELECT partition, coalesce(next_offset, 0) FROM sluice.offsets WHERE "
                       "connector = '" +
                       connector + "' AND topic = '" + topic + "'")) {
    out[std::stoi(str(r[0]))] = std::stoll(str(r[1]));
  }
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// One scenario: a fresh mock cluster and topic, `members` sluice processes in one group, a
// stream produced while `inject` does its damage, then the checks every scenario shares.
class mock_scenario {
 public:
  explicit mock_scenario(const std::string& name, int members = 1)
      : _kafka(3),
        _topic(unique_name("cdc_" + name)),
        _connector(unique_name("mock_" + name)),
        _accounts_table(unique_name(name + "_accounts")),
        _ledger_table(unique_name(name + "_ledger")) {
    _kafka.create_topic(_topic, partitions);
    _kafka.set_coordinator(_connector, 1);
    for (int i = 0; i < members; ++i) {
      _members.push_back(std::make_unique<sluice_process>(
          mock_config(_connector, _kafka.bootstraps(), _topic, application_name(i)),
          "sluice_mock"));
    }
    // Every partition claimed (and every member in the group) before the first message, so
    // that the audit trigger sees every commit.
    const bool claimed = wait_until(
        [&] {
          for (auto& m : _members)
            if (m->log().find("claimed") == std::string::npos) return false;
          try {
            return stored_offsets(_connector, _topic).size() == partitions;
          } catch (const std::exception&) {
            return false;  // no state schema yet
          }
        },
        60s);
    REQUIRE_MESSAGE(claimed, logs());
    _audit = std::make_unique<offset_audit>(_connector);
    _watch = std::make_unique<offset_watch>(_connector);
    _producer = std::make_unique<stream_producer>(_kafka.bootstraps(), _topic, partitions,
                                                  _accounts_table, _ledger_table);
  }

  mock_kafka_cluster& kafka() { return _kafka; }
  const std::string& group() const { return _connector; }
  const std::string& topic() const { return _topic; }
  stream_producer& producer() { return *_producer; }
  sluice_process& member(size_t i) { return *_members.at(i); }
  std::string application_name(size_t member) const {
    return _connector + "_m" + std::to_string(member);
  }
  const std::string& accounts_table() const { return _accounts_table; }
  const std::string& ledger_table() const { return _ledger_table; }

  // The partitions a member owns according to its log: claimed since it last lost any, and
  // not released since (a cooperative rebalance moves some of a member's partitions only).
  std::vector<int32_t> claimed_by(size_t member) const {
    const std::string text = _members.at(member)->log();
    const auto last = [&](const std::string& what) {
      std::map<int32_t, size_t> at;  // partition → position of its last such line
      const std::string prefix = what + " " + _topic + "[";
      for (size_t i = text.find(prefix); i != std::string::npos; i = text.find(prefix, i + 1))
        at[std::stoi(text.substr(i + prefix.size()))] = i;
      return at;
    };
    const std::map<int32_t, size_t> released = last("released");
    const size_t lost = text.rfind("lost ");
    std::vector<int32_t> out;
    for (const auto& [p, i] : last("claimed")) {
      const auto r = released.find(p);
      if ((lost == std::string::npos || i > lost) && (r == released.end() || i > r->second))
        out.push_back(p);
    }
    return out;
  }

  // The group's offsets committed to Kafka (sluice's asynchronous copy, for lag tools).
  std::map<int32_t, int64_t> kafka_committed() {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", _kafka.bootstraps().c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", _connector.c_str(), err, sizeof err);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE(rk);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
    for (int32_t p = 0; p < partitions; ++p)
      rd_kafka_topic_partition_list_add(list, _topic.c_str(), p);
    std::map<int32_t, int64_t> out;
    if (rd_kafka_committed(rk, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      for (int i = 0; i < list->cnt; ++i)
        out[list->elems[i].partition] = list->elems[i].offset;
    }
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_destroy(rk);
    return out;
  }

  // Blocks until the producer enqueued at least n messages.
  void after_produced(int64_t n) {
    REQUIRE(wait_until([&] { return _producer->produced() >= n; }, 120s));
  }

  // How often the members logged `what` so far, and waiting until they did it `n` times: the
  // faults injected before took effect.
  size_t logged(const std::string& what) const { return count(logs(), what); }
  void wait_logged(const std::string& what, size_t n) {
    REQUIRE_MESSAGE(wait_until([&] { return logged(what) >= n; }, 60s),
                    "waiting for " << n << " x '" << what << "'\n"
                                   << logs());
  }

  std::string logs() const {
    std::string out;
    for (size_t i = 0; i < _members.size(); ++i)
      out += "--- member " + std::to_string(i) + " ---\n" + _members[i]->log();
    return out;
  }

  // Produces waves of 30 messages every 100 ms while inject runs and for two seconds more,
  // waits until sluice caught up, stops the members, and checks the replica, the offsets and
  // the audit.
  void run(const std::function<void()>& inject) {
    _producer->start(30, 100ms);
    // Every row version proposed from here on is recorded: before the first fault.
    std::vector<std::string> tables;
    std::string names;
    for (int32_t p = 0; p < partitions; ++p) {
      for (const std::string& base : {_accounts_table, _ledger_table}) {
        tables.push_back(table_of(base, p));
        names += (names.empty() ? "'" : ", '") + tables.back() + "'";
      }
    }
    REQUIRE(wait_until(
        [&] {
          return str(query("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                           "'public' AND table_name IN (" +
                           names + ")")
                         .at(0)
                         .at(0)) == std::to_string(tables.size());
        },
        30s));
    apply_audit applies(_connector, tables);
    inject();
    _producer->finish(20);
    REQUIRE(_producer->failures() == 0);
    const std::map<int32_t, int64_t> hw = _producer->high_watermarks();
    const int64_t total = _producer->produced();
    // The log holds every delivered message, and may hold a few twice: when a mock broker goes
    // down with a produce request in flight, the idempotent producer's retry can be appended
    // again (seen once in CI: 3,787 messages in the log for 3,780 delivered). A duplicate is the
    // same change at the same CSN, so the expected state below is still exactly what the log
    // implies, and sluice must take the duplicate in its stride.
    REQUIRE(sum(hw) >= total);
    for (const auto& [p, delivered] : _producer->delivered_per_partition())
      REQUIRE(delivered <= hw.at(p));
    if (sum(hw) > total) MESSAGE((sum(hw) - total) << " message(s) appended twice by the mock");

    const bool caught_up =
        wait_until([&] { return stored_offsets(_connector, _topic) == hw; }, 90s);
    const std::string log_text = logs();
    CHECK_MESSAGE(caught_up, "stored offsets never reached the high watermarks\n" << log_text);
    for (auto& m : _members)
      CHECK_MESSAGE(m->stop() == 0, log_text);
    _watch->stop();
    CHECK_MESSAGE(count(log_text, "FAILED:") == 0, log_text);

    // (2) sluice.offsets holds every partition's high watermark.
    CHECK(stored_offsets(_connector, _topic) == hw);
    // (3) offsets never moved backwards, and every message was committed exactly once.
    const std::vector<std::string> backwards = _watch->backwards();
    CHECK_MESSAGE(backwards.empty(), (backwards.empty() ? "" : backwards.front()));
    CHECK(_watch->polls() > 10);
    const std::vector<std::string> violations = _audit->violations(_topic, hw);
    std::string all;
    for (const std::string& v : violations)
      all += v + "\n";
    CHECK_MESSAGE(violations.empty(), all << log_text);
    CHECK(_audit->commits() >= partitions);
    const std::vector<std::string> twice = applies.applied_twice();
    CHECK_MESSAGE(twice.empty(), twice.size() << " row version(s) applied twice, first: "
                                              << (twice.empty() ? "" : twice.front()));
    CHECK(applies.proposals() > 0);
    // (1) the replica equals the state the history implies.
    check_replica();
  }

 private:
  void check_replica() {
    const expected_state& want = _producer->expected();
    std::map<int64_t, int64_t> got;
    for (auto& r : query(select_all("id, version, note", _accounts_table))) {
      const int64_t id = std::stoll(str(r[0]));
      got[id] = std::stoll(str(r[1]));
      CHECK(str(r[2]) == "v" + str(r[1]));
    }
    CHECK(got.size() == want.accounts.size());
    int wrong = 0;
    std::string first_wrong;
    for (const auto& [id, version] : want.accounts) {
      auto it = got.find(id);
      if (it == got.end() || it->second != version) {
        if (!wrong++) {
          first_wrong = "account " + std::to_string(id) + ": want version " +
                        std::to_string(version) + ", got " +
                        (it == got.end() ? "no row" : std::to_string(it->second));
        }
      }
    }
    for (const auto& [id, version] : got) {
      if (!want.accounts.contains(id) && !wrong++) {
        first_wrong = "account " + std::to_string(id) + " should be deleted";
      }
    }
    CHECK_MESSAGE(wrong == 0, wrong << " wrong account row(s); first: " << first_wrong);

    auto ledger = query(
        "SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(sum(amount), 0) "
        "FROM (" +
        select_all("id, amount", _ledger_table) + ") AS l");
    int64_t ids = 0;
    for (int64_t id : want.ledger)
      ids += id;
    CHECK(str(ledger[0][0]) == std::to_string(want.ledger.size()));
    CHECK(str(ledger[0][1]) == std::to_string(want.ledger.size()));
    CHECK(str(ledger[0][2]) == std::to_string(ids));
    CHECK(str(ledger[0][3]) == std::to_string(ids * 7));
  }

  mock_kafka_cluster _kafka;  // first: outlives the members and the producer that use it
  std::string _topic, _connector, _accounts_table, _ledger_table;
  std::unique_ptr<offset_audit> _audit;
  std::unique_ptr<offset_watch> _watch;
  std::unique_ptr<stream_producer> _producer;
  // Last: killed first when a check throws, so that a member stopped mid-transaction does not
  // hold the locks the audit's DROP TRIGGER waits for.
  std::vector<std::unique_ptr<sluice_process>> _members;
};

}  // namespace

TEST_CASE("OffsetCommit errors to Kafka change nothing: PostgreSQL holds the offsets") {
  mock_scenario s("commit", /*members=*/1);
  const int32_t coordinator = s.kafka().coordinator_of(s.group());
  auto all_answered = [&] {
    return wait_until(
        [&] { return s.kafka().pending_broker_errors(coordinator, kafka_api::offset_commit) == 0; },
        30s);
  };
  s.run([&] {
    // Retriable and coordinator-moving errors: librdkafka retries or gives up on the commit.
    s.after_produced(500);
    s.kafka().push_broker_errors(
        coordinator, kafka_api::offset_commit,
        {RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
         RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS, RD_KAFKA_RESP_ERR_NOT_COORDINATOR});
    CHECK(all_answered());
    // Membership-ending errors: librdkafka drops the assignment as lost and rejoins.
    for (rd_kafka_resp_err_t e :
         {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID}) {
      const size_t lost = s.logged("lost "), claimed = s.logged("claimed");
      s.kafka().push_broker_errors(coordinator, kafka_api::offset_commit, {e});
      CHECK(all_answered());
      s.wait_logged("lost ", lost + 1);
      s.wait_logged("claimed", claimed + partitions);
    }
  });
}

TEST_CASE("the group coordinator moves to another broker mid-stream, and fails over") {
  mock_scenario s("coordinator", /*members=*/2);
  s.run([&] {
    s.after_produced(500);
    s.kafka().set_coordinator(s.group(), 2);
    std::this_thread::sleep_for(2s);
    // Failover: the coordinator's broker dies and another one takes the group over.
    s.kafka().broker_down(2);
    s.kafka().set_coordinator(s.group(), 3);
    std::this_thread::sleep_for(3s);
    s.kafka().broker_up(2);
    std::this_thread::sleep_for(2s);
    s.kafka().set_coordinator(s.group(), 1);
    std::this_thread::sleep_for(2s);
  });
  // The asynchronous commits to Kafka (for lag tools) found the coordinator where it went.
  CHECK(wait_until([&] { return s.kafka_committed() == s.producer().high_watermarks(); }, 20s));
}

TEST_CASE("a lost assignment is abandoned, not committed, and resumed from PostgreSQL") {
  mock_scenario s("lost", /*members=*/2);
  const int32_t coordinator = s.kafka().coordinator_of(s.group());
  auto all_answered = [&] {
    return wait_until(
        [&] {
          for (kafka_api api : {kafka_api::heartbeat, kafka_api::join_group, kafka_api::sync_group})
            if (s.kafka().pending_broker_errors(coordinator, api) != 0) return false;
          return true;
        },
        60s);
  };
  s.run([&] {
    s.after_produced(500);
    // The member that heartbeats next loses its assignment (generation fenced), and its
    // rejoin fails once at JoinGroup and once at SyncGroup before it gets through.
    size_t lost = s.logged("lost "), claimed = s.logged("claimed");
    s.kafka().push_broker_errors(coordinator, kafka_api::heartbeat,
                                 {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION});
    s.kafka().push_broker_errors(coordinator, kafka_api::join_group,
                                 {RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS});
    s.kafka().push_broker_errors(coordinator, kafka_api::sync_group,
                                 {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION});
    CHECK(all_answered());
    s.wait_logged("lost ", lost + 1);
    s.wait_logged("claimed", claimed + 1);
    std::this_thread::sleep_for(2s);

    // Its member id forgotten: it rejoins as a new member while the old one still counts.
    lost = s.logged("lost ");
    claimed = s.logged("claimed");
    s.kafka().push_broker_errors(coordinator, kafka_api::heartbeat,
                                 {RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID});
    CHECK(all_answered());
    s.wait_logged("lost ", lost + 1);
    s.wait_logged("claimed", claimed + 1);
    std::this_thread::sleep_for(2s);

    // A heartbeat answered only after the session timeout: the member times itself out while
    // the group expels it, and the other member may take its partitions over.
    lost = s.logged("lost ");
    claimed = s.logged("claimed");
    s.kafka().push_broker_errors(coordinator, kafka_api::heartbeat,
                                 {RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID}, /*rtt_ms=*/10000);
    CHECK(all_answered());
    s.wait_logged("lost ", lost + 1);
    s.wait_logged("claimed", claimed + 1);
    std::this_thread::sleep_for(2s);
  });
}

TEST_CASE("a member frozen past its session timeout comes back as a stale owner, fenced") {
  mock_scenario s("zombie", /*members=*/2);
  s.run([&] {
    s.after_produced(600);
    // Hold member 0's batches inside their transactions, after their generation check and
    // before their offsets compare-and-set: an exclusive lock on the table advisory locks its
    // lanes take first (its partitions' tables only; member 1 goes on).
    const std::vector<int32_t> owned = s.claimed_by(0);
    REQUIRE(!owned.empty());
    pqxx::connection locker(postgres_dsn());
    pqxx::nontransaction lock(locker);
    for (int32_t p : owned) {
      for (const std::string& base : {s.accounts_table(), s.ledger_table()}) {
        lock.exec("SELECT pg_advisory_lock(" + std::to_string(advisory_lock_space::table) + ", " +
                  std::to_string(table_lock_key({"public", table_of(base, p)})) + ")");
      }
    }
    // Frozen while a batch of it held offsets rows locked, it would only make member 1's claim
    // wait: freeze it when each of its sessions is idle or waiting for that lock.
    const std::string sessions =
        "SELECT count(*) FILTER (WHERE waiting), count(*) FILTER (WHERE NOT waiting AND state "
        "<> 'idle') FROM (SELECT a.state, EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid "
        "AND NOT l.granted AND l.locktype = 'advisory') AS waiting FROM pg_stat_activity a "
        "WHERE a.application_name = '" +
        s.application_name(0) + "') AS x";
    auto held_at_lock = [&] {
      const row r = query(sessions).at(0);
      return str(r[0]) != "0" && str(r[1]) == "0";
    };
    const size_t claimed = s.logged("claimed"), lost = s.logged("lost ");
    bool frozen = false;
    for (int attempt = 0; attempt < 100 && !frozen; ++attempt) {
      if (!held_at_lock()) {
        std::this_thread::sleep_for(100ms);
        continue;
      }
      // A stop-the-world pause, mid-batch.
      ::kill(s.member(0).pid(), SIGSTOP);
      std::this_thread::sleep_for(200ms);
      frozen = held_at_lock();
      if (!frozen) ::kill(s.member(0).pid(), SIGCONT);
    }
    REQUIRE(frozen);
    // Its frozen batch holds locks that batches of member 1 may wait for (a table over its
    // key-lock budget is locked exclusively): with the stream paused, member 1 has too few
    // batches for them to block its consumer, which must take part in the rebalance.
    s.producer().pause();
    lock.exec("SELECT pg_advisory_unlock_all()");
    // The group expels the frozen member, and member 1 claims its partitions from the offsets
    // in PostgreSQL.
    const bool taken_over =
        wait_until([&] { return s.logged("claimed") >= claimed + owned.size(); }, 60s);
    std::string activity;
    for (const row& r : query("SELECT application_name, state, wait_event_type, "
                              "left(query, 120) FROM pg_stat_activity WHERE application_name "
                              "LIKE 'mock_%'")) {
      activity += str(r[0]) + " " + str(r[1]) + " " + str(r[2]) + " " + str(r[3]) + "\n";
    }
    ::kill(s.member(0).pid(), SIGCONT);
    s.producer().resume();
    REQUIRE_MESSAGE(taken_over, activity << s.logs());
    // Awake, its lane carries on with the batch: the owner epoch must refuse it.
    CHECK_MESSAGE(wait_until([&] { return s.logged("batch abandoned") >= 1; }, 20s),
                  "the stale owner's batch was not refused\n"
                      << s.logs());
    s.wait_logged("lost ", lost + 1);
    s.wait_logged("claimed", claimed + partitions);
    std::this_thread::sleep_for(2s);
  });
}

TEST_CASE("the leaders' brokers go down and come back while the producer keeps writing") {
  mock_scenario s("down", /*members=*/1);
  const int32_t coordinator = s.kafka().coordinator_of(s.group());
  s.run([&] {
    s.after_produced(500);
    // Partitions stay with their leader (the mock moves none): producer and consumer wait
    // for the broker to come back.
    for (int32_t broker = 1; broker <= s.kafka().brokers(); ++broker) {
      if (broker == coordinator) continue;
      s.kafka().broker_down(broker);
      std::this_thread::sleep_for(3s);
      s.kafka().broker_up(broker);
      std::this_thread::sleep_for(2s);
    }
    // The coordinator (a leader too), longer than the session timeout: the member times
    // itself out, the group expels it, and it rejoins when the broker is back.
    const size_t lost = s.logged("lost "), claimed = s.logged("claimed");
    s.kafka().broker_down(coordinator);
    std::this_thread::sleep_for(7s);
    s.kafka().broker_up(coordinator);
    s.wait_logged("lost ", lost + 1);
    s.wait_logged("claimed", claimed + partitions);
  });
}

}  // namespace sluice::testing
