// Operating sluice as a Kafka Connect connector (issue 29): Connect's REST API, served by any
// member, acting on every member of the connector through the control state in PostgreSQL.
//
//   - two members; through one of them: DELETE /offsets refused while RUNNING (400), stop (both
//     drain and leave the group), PATCH /offsets (one partition moved, one cleared), resume:
//     both rejoin and replay from there; pause reaches both; writes need the token (Bearer or
//     Basic's password);
//   - a refused login (the role loses LOGIN) makes both members FAILED; once fixed, one POST
//     /restart through one member brings both back, in the same processes;
//   - a restart re-reads the configuration and its ${file:} secrets; ten restarts in a row
//     leave the process's descriptors where they were (and, under ASan, nothing leaked).

#include <dirent.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;

const std::string k_token = "rest-token";
const std::string k_bearer = "Authorization: Bearer " + k_token + "\r\n";
// Basic base64("admin:rest-token"), as Connect tools send credentials.
const std::string k_basic = "Authorization: Basic YWRtaW46cmVzdC10b2tlbg==\r\n";

http_response call(uint16_t port, std::string_view method, const std::string& path,
                   const std::string& headers = {}, const std::string& body = {}) {
  try {
    return http_request(port, method, path, headers, body);
  } catch (const std::exception&) {
    return {};
  }
}

std::string member_config(const std::string& connector, const std::string& topic, uint16_t port,
                          const std::string& extra = {}) {
  return with_metrics_listen(basic_config(connector, topic, "datastream",
                                          "http:\n  auth.token: " + k_token + "\n" + extra, 100),
                             port);
}

size_t count_rows(const std::string& table) {
  try {
    return static_cast<size_t>(count_of("SELECT count(*) FROM public.\"" + table + "\""));
  } catch (const std::exception&) {
    return 0;
  }
}

// The connector's status through `port` holds `part`.
bool status_has(uint16_t port, const std::string& connector, const std::string& part) {
  return call(port, "GET", "/connectors/" + connector + "/status").body.find(part) !=
         std::string::npos;
}

size_t open_descriptors(pid_t pid) {
  size_t n = 0;
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (readdir(d) != nullptr)
      ++n;
    closedir(d);
  }
  return n;
}

}  // namespace

TEST_CASE("through one of two members: stop, PATCH offsets, resume; pause reaches both") {
  const std::string connector = unique_name("rest_ops");
  const std::string topic = unique_name("cdc_rest_ops");
  const std::string table = unique_name("rest_rows");
  create_topic(topic, 2);
  std::vector<kafka_record> rows = datastream_rows(table, 1, 20);
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].partition = static_cast<int>(i % 2);  // 10 per partition, offsets 0..9
  produce(topic, rows);
  const uint16_t pa = free_port(), pb = free_port();
  sluice_process a(member_config(connector, topic, pa), "rest_a");
  sluice_process b(member_config(connector, topic, pb), "rest_b");
  const std::string base = "/connectors/" + connector;
  const auto logs = [&] { return a.log() + "\n---- b ----\n" + b.log(); };

  REQUIRE_MESSAGE(wait_until([&] { return count_rows(table) == 20; }, 60s), logs());
  // Any member answers for both: two tasks, one per member, RUNNING.
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        const std::string s = call(pb, "GET", base + "/status").body;
                        return s.find("\"id\":1,\"state\":\"RUNNING\"") != std::string::npos &&
                               s.find("\"id\":0,\"state\":\"RUNNING\"") != std::string::npos;
                      },
                      30s),
                  call(pb, "GET", base + "/status").body);
  CHECK(call(pa, "GET", "/connectors").body == "[\"" + connector + "\"]");
  CHECK(call(pa, "GET", "/connectors/nope/status").status == 404);
  // KIP-875: offsets change only while STOPPED.
  const http_response refused = call(pa, "DELETE", base + "/offsets", k_bearer);
  CHECK(refused.status == 400);
  CHECK(refused.body.find("\"error_code\":400") != std::string::npos);
  CHECK(refused.body.find("STOPPED") != std::string::npos);
  // Writes need the token; Basic's password is the token too.
  CHECK(call(pa, "PUT", base + "/stop").status == 401);
  CHECK(call(pa, "PUT", base + "/stop", "Authorization: Basic YWRtaW46d3Jvbmc=\r\n").status == 401);
  CHECK(call(pa, "PUT", base + "/stop", k_basic).status == 204);

  // Both members drain and leave the group; the process stays up, alive and not ready.
  REQUIRE_MESSAGE(
      wait_until(
          [&] {
            return call(pb, "GET", base + "/status").body.find("\"state\":\"STOPPED\"") !=
                       std::string::npos &&
                   call(pa, "GET", "/status").body.find("\"connector\":{\"state\":\"STOPPED\"") !=
                       std::string::npos &&
                   call(pb, "GET", "/status").body.find("\"connector\":{\"state\":\"STOPPED\"") !=
                       std::string::npos;
          },
          30s),
      logs());
  CHECK(call(pb, "GET", base + "/status").body.find("\"tasks\":[]") != std::string::npos);
  CHECK(call(pa, "GET", "/healthz").status == 200);
  CHECK(call(pa, "GET", "/readyz").status == 503);
  CHECK(a.running());
  CHECK(b.running());
  const std::string before = call(pb, "GET", base + "/offsets").body;
  CHECK_MESSAGE(
      before.find("\"kafka_partition\":0},\"offset\":{\"kafka_offset\":10}") != std::string::npos,
      before);
  const int64_t epochs_before =
      count_of("SELECT sum(owner_epoch) FROM sluice.offsets WHERE connector = '" + connector + "'");

  // Through the other member: partition 0 back to offset 5, partition 1 cleared (earliest).
  const std::string patch = "{\"offsets\":[{\"partition\":{\"kafka_topic\":\"" + topic +
                            "\",\"kafka_partition\":0},\"offset\":{\"kafka_offset\":5}},"
                            "{\"partition\":{\"kafka_topic\":\"" +
                            topic + "\",\"kafka_partition\":1},\"offset\":null}]}";
  // The PATCH waits (up to 15 s) for the group to be empty: a member's LeaveGroup may still be
  // on its way, longer than the test client's 5 s read timeout under ASan. Absolute values:
  // asking again is safe.
  http_response altered;
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        altered = call(pb, "PATCH", base + "/offsets", k_bearer, patch);
                        return altered.status == 200;
                      },
                      60s),
                  altered.status << " " << altered.body);
  CHECK(altered.body ==
        "{\"message\":\"The offsets for this connector have been altered "
        "successfully\"}");
  CHECK(count_of("SELECT next_offset FROM sluice.offsets WHERE connector = '" + connector +
                 "' AND partition = 0") == 5);
  CHECK(query("SELECT next_offset FROM sluice.offsets WHERE connector = '" + connector +
              "' AND partition = 1")[0][0] == std::nullopt);
  // The epochs moved, as `sluice offsets reset` moves them: a zombie cannot write past this.
  // (at least: a PATCH that timed out on the client side may have been applied too)
  CHECK(count_of("SELECT sum(owner_epoch) FROM sluice.offsets WHERE connector = '" + connector +
                 "'") >= epochs_before + 2);
  CHECK(call(pa, "GET", base + "/offsets").body.find("\"kafka_partition\":1") ==
        std::string::npos);  // a cleared partition has no offset to show

  // The replica loses its rows; resumed, the members replay what the new offsets say:
  // partition 0 from 5 (5 rows), partition 1 from the start (10 rows).
  execute("DELETE FROM public.\"" + table + "\"");
  CHECK(call(pa, "PUT", base + "/resume", k_bearer).status == 202);
  REQUIRE_MESSAGE(wait_until([&] { return count_rows(table) == 15; }, 60s), logs());
  std::this_thread::sleep_for(2s);
  CHECK(count_rows(table) == 15);
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        const std::string s = call(pa, "GET", base + "/status").body;
                        return s.find("\"id\":1,\"state\":\"RUNNING\"") != std::string::npos;
                      },
                      30s),
                  logs());

  // A pause through one member reaches both; new rows wait until the resume.
  CHECK(call(pb, "PUT", base + "/pause", k_bearer).status == 202);
  REQUIRE_MESSAGE(
      wait_until(
          [&] {
            return call(pa, "GET", "/status").body.find("\"connector\":{\"state\":\"PAUSED\"") !=
                       std::string::npos &&
                   call(pb, "GET", "/status").body.find("\"connector\":{\"state\":\"PAUSED\"") !=
                       std::string::npos;
          },
          30s),
      logs());
  produce(topic, datastream_rows(table, 21, 10));
  std::this_thread::sleep_for(3s);
  CHECK(count_rows(table) == 15);
  CHECK(call(pa, "PUT", base + "/resume", k_bearer).status == 202);
  CHECK_MESSAGE(wait_until([&] { return count_rows(table) == 25; }, 60s), logs());
  CHECK(a.stop() == 0);
  CHECK(b.stop() == 0);
  // Members that stop for good take their heartbeat away.
  CHECK(count_of("SELECT count(*) FROM sluice.members WHERE connector = '" + connector + "'") == 0);
}

TEST_CASE("a refused login fails both members; one restart through one brings both back") {
  const std::string connector = unique_name("rest_login");
  const std::string topic = unique_name("cdc_rest_login");
  const std::string table = unique_name("login_rows");
  const std::string role = unique_name("rest_role");
  execute("CREATE ROLE \"" + role + "\" LOGIN SUPERUSER");
  create_topic(topic, 2);
  produce(topic, datastream_rows(table, 1, 10));
  const auto as_role = [&](uint16_t port) {
    std::string cfg = member_config(connector, topic, port);
    cfg.replace(cfg.find("://sluice@"), 10, "://" + role + "@");
    return cfg;
  };
  const uint16_t pa = free_port(), pb = free_port();
  sluice_process a(as_role(pa), "login_a");
  sluice_process b(as_role(pb), "login_b");
  const std::string base = "/connectors/" + connector;
  const auto logs = [&] { return a.log() + "\n---- b ----\n" + b.log(); };
  REQUIRE_MESSAGE(wait_until([&] { return count_rows(table) == 10; }, 60s), logs());
  const pid_t pid_a = a.pid(), pid_b = b.pid();

  // The role loses its login and its connections: both members fail, saying why.
  execute("ALTER ROLE \"" + role + "\" NOLOGIN");
  execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
  produce(topic, datastream_rows(table, 11, 10));  // work that needs a connection
  REQUIRE_MESSAGE(
      wait_until(
          [&] {
            return call(pa, "GET", "/status").body.find("\"connector\":{\"state\":\"FAILED\"") !=
                       std::string::npos &&
                   call(pb, "GET", "/status").body.find("\"connector\":{\"state\":\"FAILED\"") !=
                       std::string::npos;
          },
          90s),
      logs());
  CHECK(status_has(pa, connector, "\"state\":\"FAILED\""));  // a task FAILED, with a trace
  CHECK(status_has(pa, connector, "not permitted to log in"));

  // Fixed; one restart of the failed tasks through member b.
  execute("ALTER ROLE \"" + role + "\" LOGIN");
  const http_response r =
      call(pb, "POST", base + "/restart?includeTasks=true&onlyFailed=true", k_bearer);
  CHECK_MESSAGE(r.status == 202, r.body);
  CHECK(r.body.find("RESTARTING") != std::string::npos);
  CHECK_MESSAGE(wait_until([&] { return count_rows(table) == 20; }, 90s), logs());
  CHECK_MESSAGE(
      wait_until(
          [&] {
            return call(pa, "GET", "/status").body.find("\"connector\":{\"state\":\"RUNNING\"") !=
                       std::string::npos &&
                   call(pb, "GET", "/status").body.find("\"connector\":{\"state\":\"RUNNING\"") !=
                       std::string::npos;
          },
          60s),
      logs());
  // The same processes.
  CHECK(a.pid() == pid_a);
  CHECK(b.pid() == pid_b);
  CHECK(a.running());
  CHECK(b.running());
  CHECK(a.stop() == 0);
  CHECK(b.stop() == 0);
  execute("DROP OWNED BY \"" + role + "\"");
  execute("DROP ROLE \"" + role + "\"");
}

TEST_CASE("a restart re-reads the configuration and its secrets; ten in a row leak nothing") {
  const std::string connector = unique_name("rest_restart");
  const std::string topic = unique_name("cdc_rest_restart");
  const std::string table = unique_name("restart_rows");
  create_topic(topic, 1);
  produce(topic, datastream_rows(table, 1, 5));
  // The DSN is a secret file; it first names a database that does not exist.
  std::string dsn = postgres_dsn();
  const std::string wrong = dsn.substr(0, dsn.find("/replica")) + "/nosuch_rest_db" +
                            dsn.substr(dsn.find("/replica") + 8);
  const std::string secret = write_run_file("rest_dsn", wrong);
  const uint16_t port = free_port();
  std::string cfg = member_config(connector, topic, port);
  cfg.replace(cfg.find("\"" + dsn + "\""), dsn.size() + 2, "\"${file:" + secret + "}\"");
  sluice_process p(cfg, "rest_restart");
  const std::string base = "/connectors/" + connector;
  REQUIRE_MESSAGE(
      wait_until(
          [&] {
            return call(port, "GET", "/status").body.find("\"connector\":{\"state\":\"FAILED\"") !=
                   std::string::npos;
          },
          60s),
      p.log());
  CHECK(call(port, "GET", "/healthz").status == 503);
  CHECK(status_has(port, connector, "nosuch_rest_db"));

  // The secret fixed; a restart reads it again, in the same process.
  std::ofstream(secret, std::ios::trunc) << dsn << "\n";
  const pid_t pid = p.pid();
  CHECK(call(port, "POST", base + "/restart", k_bearer).status == 204);
  REQUIRE_MESSAGE(wait_until([&] { return count_rows(table) == 5; }, 60s), p.log());
  CHECK(p.pid() == pid);
  REQUIRE(wait_until([&] { return status_has(port, connector, "\"state\":\"RUNNING\""); }, 30s));

  // Ten restarts in a row: each tears the pipeline down (librdkafka, sessions, metric
  // families) and builds a fresh one; what the process holds open stays where it was (each
  // incarnation opens tens of descriptors: a leak per restart would show tenfold).
  const size_t descriptors = open_descriptors(pid);
  const auto restarts = [&] {
    const std::string log = p.log();
    size_t n = 0;
    for (size_t at = 0;
         (at = log.find("restarting: the configuration is read again", at)) != std::string::npos;
         ++at)
      ++n;
    return n;
  };
  const size_t before_loop = restarts();
  for (size_t i = 1; i <= 10; ++i) {
    INFO("restart " << i);
    REQUIRE(call(port, "POST", base + "/tasks/0/restart", k_bearer).status == 204);
    // This restart done (the old pipeline gone), then the new one running.
    REQUIRE_MESSAGE(wait_until([&] { return restarts() == before_loop + i; }, 60s), p.log());
    REQUIRE_MESSAGE(wait_until(
                        [&] {
                          return call(port, "GET", "/status")
                                     .body.find("\"connector\":{\"state\":\"RUNNING\"") !=
                                 std::string::npos;
                        },
                        60s),
                    p.log());
  }
  produce(topic, datastream_rows(table, 6, 5));
  CHECK_MESSAGE(wait_until([&] { return count_rows(table) == 10; }, 60s), p.log());
  CHECK(open_descriptors(pid) <= descriptors + 8);
  // The fresh registry is the one scraped: the state is the new pipeline's.
  CHECK(call(port, "GET", "/metrics").body.find("sluice_state{state=\"RUNNING\"} 1") !=
        std::string::npos);
  CHECK(p.log().find("restarting") != std::string::npos);
  CHECK(p.stop() == 0);  // and, under ASan, no leak reported at exit (child_reports.h)
}

}  // namespace sluice::testing
