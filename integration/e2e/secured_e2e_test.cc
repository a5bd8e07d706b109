// Secured connections end to end (issue 12): sluice reaches the broker's SASL_SSL listener
// (TLS verified against the run's throwaway CA, SCRAM-SHA-512) and PostgreSQL over TLS with
// sslmode=verify-full, both passwords read through ${file:}. Messages are applied, and neither
// password shows in sluice's log, /status, /metrics or `sluice check`. A CA that did not sign
// the server's certificate, or credentials the broker refuses, are for a person to fix: sluice
// goes to FAILED at once, saying why, and stays there.
//
// The services (integration/services/kafka.sh, postgres.sh, tls.sh) leave in the run dir:
// kafka.secure.bootstrap, kafka.secure.user, kafka.secure.password, postgres.secure.dsn,
// postgres.secure.password and tls/ca.crt.

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

std::string run_file(const std::string& name) {
  std::ifstream in(run_dir() + "/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, run_dir() << "/" << name << " is missing: are the service fixtures running?");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n')
    s.pop_back();
  return s;
}

std::string ca_path() {
  return run_dir() + "/tls/ca.crt";
}

// A CA certificate that signed nothing of this run (tls.sh lone-ca).
std::string lone_ca() {
  const char* services = std::getenv("SLUICE_SERVICES_DIR");
  REQUIRE_MESSAGE(services, "SLUICE_SERVICES_DIR is not set (run through ctest)");
  const std::string path = run_dir() + "/" + unique_name("lone_ca") + ".crt";
  const int rc = std::system(
      ("\"" + std::string(services) + "/tls.sh\" lone-ca \"" + path + "\" >&2").c_str());
  REQUIRE_MESSAGE((rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0), "tls.sh lone-ca failed");
  return path;
}

// What a secured connector is configured with; tests spoil one thing at a time.
struct secured_setup {
  std::string kafka_password_file;  // the SCRAM password, read through ${file:}
  std::string kafka_ca = ca_path();
  std::string pg_password_file;
  std::string pg_root_cert = ca_path();
};

// Both passwords as secret files are usually mounted: with a trailing newline.
secured_setup good_setup() {
  secured_setup s;
  s.kafka_password_file =
      write_run_file("kafka_password", run_file("kafka.secure.password") + "\n");
  s.pg_password_file = write_run_file("pg_password", run_file("postgres.secure.password") + "\r\n");
  return s;
}

std::string secured_config(const std::string& connector, const std::string& topic, uint16_t port,
                           const secured_setup& s) {
  // postgresql://sluice_tls@127.0.0.1:PORT/replica?sslmode=verify-full&sslrootcert=<ca>
  std::string dsn = run_file("postgres.secure.dsn");
  const std::string user = "sluice_tls@";
  REQUIRE_MESSAGE(dsn.find(user) != std::string::npos, dsn);
  dsn.replace(dsn.find(user), user.size(), "sluice_tls:${file:" + s.pg_password_file + "}@");
  const std::string root = "sslrootcert=" + ca_path();
  REQUIRE_MESSAGE(dsn.find(root) != std::string::npos, dsn);
  dsn.replace(dsn.find(root), root.size(), "sslrootcert=" + s.pg_root_cert);
  std::ostringstream y;
  y << "name: " << connector << "\n"
    << "kafka:\n"
    << "  bootstrap.servers: " << run_file("kafka.secure.bootstrap") << "\n"
    << "  group.id: " << connector << "\n"
    << "  auto.offset.reset: earliest\n"
    << "  session.timeout.ms: 6000\n"
    << "  heartbeat.interval.ms: 500\n"
    << "  security.protocol: SASL_SSL\n"
    << "  sasl.mechanism: SCRAM-SHA-512\n"
    << "  sasl.username: " << run_file("kafka.secure.user") << "\n"
    << "  sasl.password: \"${file:" << s.kafka_password_file << "}\"\n"
    << "  ssl.ca.location: " << s.kafka_ca << "\n"
    << "topics: [" << topic << "]\n"
    << "format: datastream\n"
    << "postgres:\n"
    << "  dsn: \"" << dsn << "\"\n"
    << "batch.size: 100\n"
    << "batch.max.ms: 200\n"
    << "metrics:\n"
    << "  listen: \"127.0.0.1:" << port << "\"\n"
    << "log:\n"
    << "  level: debug\n";
  return y.str();
}

std::vector<kafka_record> events(const std::string& table, int count) {
  std::vector<kafka_record> out;
  for (int id = 1; id <= count; ++id) {
    datastream_event e;
    e.table = table;
    e.lsn = 100 + static_cast<uint64_t>(id);
    e.payload_json = "\"id\":" + std::to_string(id) + ",\"v\":" + std::to_string(id * 10);
    out.push_back({std::to_string(id), e.json(), -1});
  }
  return out;
}

std::string get(uint16_t port, const std::string& path) {
  try {
    return http_request(port, "GET", path).body;
  } catch (const std::exception&) {
    return "";
  }
}

int code(uint16_t port, const std::string& path) {
  try {
    return http_request(port, "GET", path).status;
  } catch (const std::exception&) {
    return 0;
  }
}

// The connector's state in /status ("" while the server is not up).
std::string state(uint16_t port) {
  const std::string body = get(port, "/status");
  const std::string key = "\"state\":\"";
  const size_t at = body.find(key);
  if (at == std::string::npos) return "";
  return body.substr(at + key.size(), body.find('"', at + key.size()) - at - key.size());
}

// Neither password in `text`.
void check_no_password(const std::string& where, const std::string& text) {
  for (const char* file : {"kafka.secure.password", "postgres.secure.password"}) {
    const std::string password = run_file(file);
    REQUIRE(password.size() >= 16);
    CHECK_MESSAGE(!contains(text, password), "the " << file << " shows in " << where);
  }
}

// A connector whose configuration a person must fix: FAILED within 30 s, saying `reason`; still
// FAILED (not retried, not DEGRADED) seconds later; /healthz 503; exits 1 when stopped.
void check_fails_saying(const std::string& config, uint16_t port, const std::string& reason) {
  const auto started = clock_type::now();
  sluice_process p(config, "sluice_secured");
  wait_until([&] { return state(port) == "FAILED" || !p.running(); }, 30s);
  REQUIRE_MESSAGE(state(port) == "FAILED", p.log());
  MESSAGE("FAILED after " << std::chrono::duration<double>(clock_type::now() - started).count()
                          << " s");
  std::string status = get(port, "/status");
  CHECK_MESSAGE(contains(status, reason), status);
  std::this_thread::sleep_for(3s);
  CHECK(p.running());
  CHECK(state(port) == "FAILED");
  CHECK(code(port, "/healthz") == 503);
  status = get(port, "/status");
  const std::string log = p.log();
  CHECK_MESSAGE(contains(log, "FAILED: "), log);
  CHECK_MESSAGE(contains(log, reason), log);
  check_no_password("the log", log);
  check_no_password("/status", status);
  CHECK_MESSAGE(p.stop() == 1, p.log());
}

}  // namespace

TEST_CASE("over TLS and SCRAM with passwords from files, messages apply and no password shows") {
  const std::string topic = unique_name("cdc_secured");
  const std::string table = unique_name("secured_rows");
  const std::string connector = unique_name("secured");
  create_topic(topic, 3);
  produce(topic, events(table, 60));
  const uint16_t port = free_port();
  const secured_setup setup = good_setup();
  const std::string config = secured_config(connector, topic, port, setup);

  // `check` reaches both services over the secured paths and prints no password.
  const std::string config_path = write_run_file("secured_check", config);
  const command_result checked = run_sluice({"check", "-c", config_path}, "", 60);
  CHECK_MESSAGE(checked.exit_code == 0, checked.out << checked.err);
  CHECK_MESSAGE(contains(checked.out, "check passed (exit 0)"), checked.out << checked.err);
  CHECK_MESSAGE(contains(checked.out, "broker(s)"), checked.out << checked.err);  // answered
  CHECK_MESSAGE(contains(checked.out, "PostgreSQL "), checked.out << checked.err);
  CHECK(contains(checked.out, "  sasl.password: \"***\""));
  check_no_password("sluice check", checked.out + checked.err);

  sluice_process p(config, "sluice_secured");
  const auto rows = [&] {
    try {
      return query("SELECT count(*) FROM public.\"" + table + "\"")[0][0].value_or("");
    } catch (const std::exception&) {
      return std::string("none");
    }
  };
  REQUIRE_MESSAGE(wait_until([&] { return rows() == "60"; }, 60s), rows() << "\n" << p.log());
  CHECK(query("SELECT sum(v::bigint) FROM public.\"" + table + "\"")[0][0] == "18300");
  CHECK(wait_until([&] { return state(port) == "RUNNING"; }, 10s));

  // sluice's own sessions are TLS sessions of sluice_tls, the role that may log in only so.
  const auto sessions = query(
      "SELECT count(*), bool_and(s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) "
      "WHERE a.usename = 'sluice_tls'");
  CHECK(std::stoi(sessions[0][0].value_or("0")) >= 1);
  CHECK(sessions[0][1] == "t");

  check_no_password("/status", get(port, "/status"));
  check_no_password("/metrics", get(port, "/metrics"));
  CHECK(p.stop() == 0);
  const std::string log = p.log();
  CHECK_MESSAGE(contains(log, "running as connector"), log);
  check_no_password("the log", log);
}

TEST_CASE("a broker certificate from another CA, or refused SCRAM credentials: FAILED, saying so") {
  const std::string topic = unique_name("cdc_secured_bad");
  create_topic(topic, 1);
  {
    INFO("ssl.ca.location names a CA that did not sign the broker's certificate");
    secured_setup setup = good_setup();
    setup.kafka_ca = lone_ca();
    const uint16_t port = free_port();
    const std::string config = secured_config(unique_name("bad_ca"), topic, port, setup);
    // `check` says why too, not just that the broker is unreachable.
    const command_result checked =
        run_sluice({"check", "-c", write_run_file("bad_ca_check", config)}, "", 60);
    CHECK(checked.exit_code == 3);
    CHECK_MESSAGE(contains(checked.out, "UNREACHABLE"), checked.out);
    CHECK_MESSAGE(contains(checked.out, "certificate verify failed"), checked.out);
    check_no_password("sluice check", checked.out + checked.err);
    check_fails_saying(config, port, "certificate verify failed");
  }
  {
    INFO("a SCRAM password the broker refuses");
    secured_setup setup = good_setup();
    setup.kafka_password_file = write_run_file("kafka_wrong_password", "not-the-password\n");
    const uint16_t port = free_port();
    check_fails_saying(secured_config(unique_name("bad_scram"), topic, port, setup), port,
                       "SASL authentication error");
  }
}

TEST_CASE("a PostgreSQL certificate from another CA under verify-full: FAILED, saying so") {
  const std::string topic = unique_name("cdc_secured_pg");
  create_topic(topic, 1);
  secured_setup setup = good_setup();
  setup.pg_root_cert = lone_ca();
  const uint16_t port = free_port();
  check_fails_saying(secured_config(unique_name("bad_root"), topic, port, setup), port,
                     "certificate verify failed");
}

}  // namespace sluice::testing
