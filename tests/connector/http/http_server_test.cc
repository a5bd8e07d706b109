#include "connector/http/http_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <string>

#include "connector/metrics/apply_probe.h"
#include "connector/metrics/metrics_registry.h"
#include "tests/connector/http/http_test_client.h"

using sluice::connector_state;
using sluice::connector_status;
using sluice::http_controls;
using sluice::http_server;
using sluice::http_server_error;
using sluice::metrics_registry;
using sluice::testing::http_request;

namespace {

// A thread-safe status source, as the server requires.
class fake_status : public sluice::status_source {
 public:
  connector_status status() const override {
    std::lock_guard lock(_mutex);
    return _status;
  }
  void set(connector_state s, std::string error = "") {
    std::lock_guard lock(_mutex);
    _status.state = s;
    _status.last_error = std::move(error);
  }
  void add(std::string topic, int32_t partition, int64_t committed, int64_t high) {
    std::lock_guard lock(_mutex);
    _status.assigned.push_back({std::move(topic), sluice::partition_id{partition},
                                sluice::kafka_offset{committed}, sluice::kafka_offset{high}});
  }
  explicit fake_status(std::string name) { _status.name = std::move(name); }

 private:
  mutable std::mutex _mutex;
  connector_status _status;
};

struct fixture {
  metrics_registry registry;
  fake_status status{"orders-replica"};
  std::atomic<int> pauses{0};
  std::atomic<int> resumes{0};
  http_server server{"127.0.0.1:0", registry, status,
                     http_controls{[this] { ++pauses; }, [this] { ++resumes; }}};
  fixture() { server.start(); }
};

// A socket listening on a free loopback port, closed at scope exit.
struct held_port {
  int fd = -1;
  uint16_t port = 0;
  held_port() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd, 1) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~held_port() { ::close(fd); }
};

}  // namespace

TEST_CASE("GET /metrics serves the registry as Prometheus text") {
  fixture f;
  sluice::apply_probe(f.registry).applied("root.sample", 3);
  const auto r = http_request(f.server.port(), "GET", "/metrics");
  CHECK(r.status == 200);
  CHECK(r.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(r.body.find("# TYPE sluice_changes_total counter") != std::string::npos);
  CHECK(r.body.find("sluice_changes_total{outcome=\"applied\",table=\"root.sample\"} 3") !=
        std::string::npos);
  CHECK(r.body.find("sluice_state{state=\"STARTING\"} 1") != std::string::npos);
}

TEST_CASE(
    "GET /healthz is liveness: 200 while the process works, DEGRADED, PAUSED and STOPPED too") {
  fixture f;
  for (connector_state s :
       {connector_state::starting, connector_state::running, connector_state::degraded,
        connector_state::paused, connector_state::draining, connector_state::stopped}) {
    f.status.set(s);
    const auto r = http_request(f.server.port(), "GET", "/healthz");
    CHECK_MESSAGE(r.status == 200, to_string(s));
    CHECK(r.body == "ok\n");
  }
  for (connector_state s : {connector_state::failed}) {
    f.status.set(s, "boom");
    const auto r = http_request(f.server.port(), "GET", "/healthz");
    CHECK(r.status == 503);
    CHECK(r.body == std::string(to_string(s)) + "\n");
  }
}

TEST_CASE("GET /readyz is readiness: 200 only while RUNNING, 503 with the state otherwise") {
  fixture f;
  auto r = http_request(f.server.port(), "GET", "/readyz");
  CHECK(r.status == 503);
  CHECK(r.body == "STARTING\n");

  f.status.set(connector_state::running);
  r = http_request(f.server.port(), "GET", "/readyz");
  CHECK(r.status == 200);
  CHECK(r.body == "ok\n");

  for (connector_state s :
       {connector_state::degraded, connector_state::paused, connector_state::draining,
        connector_state::failed, connector_state::stopped}) {
    f.status.set(s, "boom");
    r = http_request(f.server.port(), "GET", "/readyz");
    CHECK_MESSAGE(r.status == 503, to_string(s));
    CHECK(r.body == std::string(to_string(s)) + "\n");
  }
  CHECK(http_request(f.server.port(), "PUT", "/readyz").status == 405);
}

TEST_CASE("GET /status has Kafka Connect's connector status shape plus partitions and lag") {
  fixture f;
  f.status.set(connector_state::running);
  f.status.add("cdc.orders", 0, 42, 50);
  const auto r = http_request(f.server.port(), "GET", "/status");
  CHECK(r.status == 200);
  CHECK(r.header("Content-Type") == "application/json");
  const std::string w = f.server.worker_id();
  CHECK(r.body ==
        "{\"name\":\"orders-replica\",\"connector\":{\"state\":\"RUNNING\",\"worker_id\":\"" + w +
            "\"},\"tasks\":[{\"id\":0,\"state\":\"RUNNING\",\"worker_id\":\"" + w +
            "\"}],\"type\":\"sink\",\"assigned\":[{\"topic\":\"cdc.orders\","
            "\"partition\":0,\"committed_offset\":42,\"high_watermark\":50,\"lag\":8}],"
            "\"last_error\":null}");
  CHECK(w == w.substr(0, w.rfind(':')) + ":" + std::to_string(getpid()));
}

TEST_CASE("GET /status of a FAILED connector carries the error as the tasks' trace") {
  fixture f;
  f.status.set(connector_state::failed, "cannot decode cdc.orders[0]@7: invalid_json");
  const auto r = http_request(f.server.port(), "GET", "/status");
  CHECK(r.status == 200);
  CHECK(r.body.find("\"tasks\":[{\"id\":0,\"state\":\"FAILED\"") != std::string::npos);
  CHECK(r.body.find("\"trace\":\"cannot decode cdc.orders[0]@7: invalid_json\"}]") !=
        std::string::npos);
  CHECK(r.body.find("\"last_error\":\"cannot decode cdc.orders[0]@7: invalid_json\"") !=
        std::string::npos);
}

TEST_CASE("PUT /pause and PUT /resume call their controls and answer 202") {
  fixture f;
  f.status.set(connector_state::running);
  CHECK(http_request(f.server.port(), "PUT", "/pause").status == 202);
  CHECK(f.pauses == 1);
  CHECK(f.resumes == 0);
  f.status.set(connector_state::paused);
  CHECK(http_request(f.server.port(), "PUT", "/resume").status == 202);
  CHECK(f.pauses == 1);
  CHECK(f.resumes == 1);
}

TEST_CASE("a FAILED connector cannot be paused or resumed: 409 and no control is called") {
  fixture f;
  f.status.set(connector_state::failed, "boom");
  auto r = http_request(f.server.port(), "PUT", "/pause");
  CHECK(r.status == 409);
  CHECK(r.body == "{\"error_code\":409,\"message\":\"the connector is FAILED\"}");
  CHECK(http_request(f.server.port(), "PUT", "/resume").status == 409);
  CHECK(f.pauses == 0);
  CHECK(f.resumes == 0);
}

TEST_CASE("pause without a control answers 501") {
  metrics_registry registry;
  fake_status status("x");
  http_server server("127.0.0.1:0", registry, status, http_controls{});
  server.start();
  CHECK(http_request(server.port(), "PUT", "/pause").status == 501);
}

TEST_CASE("unknown paths answer 404 and known paths with the wrong method 405") {
  fixture f;
  CHECK(http_request(f.server.port(), "GET", "/").status == 404);
  CHECK(http_request(f.server.port(), "GET", "/metricsx").status == 404);
  CHECK(http_request(f.server.port(), "GET", "/metrics/x").status == 404);
  CHECK(http_request(f.server.port(), "GET", "/connectors").status == 404);
  auto r = http_request(f.server.port(), "POST", "/metrics");
  CHECK(r.status == 405);
  CHECK(r.header("Allow") == "GET");
  r = http_request(f.server.port(), "GET", "/pause");
  CHECK(r.status == 405);
  CHECK(r.header("Allow") == "PUT");
  CHECK(http_request(f.server.port(), "PUT", "/status").status == 405);
  CHECK(f.pauses == 0);
}

TEST_CASE("a listen address without a host binds the loopback only") {
  metrics_registry registry;
  fake_status status("x");
  http_server server("0", registry, status, http_controls{});
  server.start();
  REQUIRE(server.running());
  CHECK(server.port() != 0);
  CHECK(server.listening_address() == "127.0.0.1:" + std::to_string(server.port()));
  CHECK(http_request(server.port(), "GET", "/readyz").status == 503);

  http_server colon(":0", registry, status, http_controls{});
  colon.start();
  CHECK(colon.listening_address().rfind("127.0.0.1:", 0) == 0);
}

TEST_CASE("the listening address names the host it was given with the actual port") {
  metrics_registry registry;
  fake_status status("x");
  http_server server("localhost:0", registry, status, http_controls{});
  server.start();
  CHECK(server.listening_address() == "127.0.0.1:" + std::to_string(server.port()));
  server.stop();
  CHECK_FALSE(server.running());
  CHECK(server.listening_address().empty());
  server.stop();  // idempotent
}

TEST_CASE("a taken port fails start with an error naming the address and the cause") {
  held_port taken;
  metrics_registry registry;
  fake_status status("x");
  const std::string listen = "127.0.0.1:" + std::to_string(taken.port);
  http_server server(listen, registry, status, http_controls{});
  try {
    server.start();
    FAIL("start() should have thrown");
  } catch (const http_server_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("cannot listen on " + listen) != std::string::npos);
    CHECK(what.find("in use") != std::string::npos);
  }
  CHECK_FALSE(server.running());
}

TEST_CASE("an empty listen address disables the server") {
  metrics_registry registry;
  fake_status status("x");
  http_server server("", registry, status, http_controls{});
  server.start();
  CHECK_FALSE(server.running());
  CHECK(server.port() == 0);
}

TEST_CASE("a listen address without a numeric port fails start with a clear error") {
  metrics_registry registry;
  fake_status status("x");
  http_server bad("127.0.0.1:http", registry, status, http_controls{});
  CHECK_THROWS_WITH_AS(bad.start(), doctest::Contains("expected host:port"), http_server_error);
  http_server bracket("[::1:9464", registry, status, http_controls{});
  CHECK_THROWS_WITH_AS(bracket.start(), doctest::Contains("expected [address]:port"),
                       http_server_error);
  CHECK_FALSE(bad.running());
  http_server too_big("127.0.0.1:65536", registry, status, http_controls{});
  CHECK_THROWS_AS(too_big.start(), http_server_error);
}

TEST_CASE("beyond loopback without a token, pause and resume are disabled: 403, no control") {
  metrics_registry registry;
  fake_status status("orders-replica");
  std::atomic<int> calls{0};
  http_server server("0.0.0.0:0", registry, status,
                     http_controls{[&] { ++calls; }, [&] { ++calls; }, ""});
  server.start();
  auto r = http_request(server.port(), "PUT", "/pause");
  CHECK(r.status == 403);
  CHECK(r.body.find("http.auth.token is not set") != std::string::npos);
  CHECK(http_request(server.port(), "PUT", "/resume").status == 403);
  // A token sent to a server that has none changes nothing.
  CHECK(http_request(server.port(), "PUT", "/pause", "Authorization: Bearer guess\r\n").status ==
        403);
  CHECK(calls == 0);
  // /status may quote row values in its reasons: beyond loopback it is closed too.
  r = http_request(server.port(), "GET", "/status");
  CHECK(r.status == 403);
  CHECK(r.body.find("/status is disabled") != std::string::npos);
  CHECK(r.body.find("orders-replica") == std::string::npos);
  // The probes and metrics stay open: Prometheus scrapes without a token.
  CHECK(http_request(server.port(), "GET", "/metrics").status == 200);
  CHECK(http_request(server.port(), "GET", "/healthz").status == 200);
}

TEST_CASE("with a token, pause and resume need it as a bearer token: 401 otherwise") {
  for (const char* listen : {"0.0.0.0:0", "127.0.0.1:0"}) {
    CAPTURE(listen);
    metrics_registry registry;
    fake_status status("orders-replica");
    std::atomic<int> pauses{0};
    std::atomic<int> resumes{0};
    http_server server(listen, registry, status,
                       http_controls{[&] { ++pauses; }, [&] { ++resumes; }, "s3cret-token"});
    server.start();
    auto r = http_request(server.port(), "PUT", "/pause");
    CHECK(r.status == 401);
    CHECK(r.header("WWW-Authenticate") == "Bearer realm=\"sluice\"");
    CHECK(r.body.find("s3cret") == std::string::npos);
    for (const char* wrong :
         {"Authorization: Bearer s3cret-tokeN\r\n", "Authorization: Bearer s3cret-toke\r\n",
          "Authorization: Bearer s3cret-token2\r\n", "Authorization: Basic s3cret-token\r\n",
          "Authorization: Bearer\r\n", "X-Token: s3cret-token\r\n"}) {
      CAPTURE(wrong);
      CHECK(http_request(server.port(), "PUT", "/pause", wrong).status == 401);
      CHECK(http_request(server.port(), "PUT", "/resume", wrong).status == 401);
    }
    CHECK(pauses == 0);
    CHECK(resumes == 0);
    CHECK(http_request(server.port(), "PUT", "/pause", "Authorization: Bearer s3cret-token\r\n")
              .status == 202);
    CHECK(pauses == 1);
    CHECK(http_request(server.port(), "PUT", "/resume", "authorization: bearer s3cret-token\r\n")
              .status == 202);
    CHECK(resumes == 1);
    // /status needs the token beyond loopback only (on loopback, the Host check guards it).
    const bool loopback = std::string_view(listen).starts_with("127.");
    CHECK(http_request(server.port(), "GET", "/status").status == (loopback ? 200 : 401));
    CHECK(http_request(server.port(), "GET", "/status", "Authorization: Bearer wrong\r\n").status ==
          (loopback ? 200 : 401));
    r = http_request(server.port(), "GET", "/status", "Authorization: Bearer s3cret-token\r\n");
    CHECK(r.status == 200);
    CHECK(r.body.find("orders-replica") != std::string::npos);
  }
}

TEST_CASE("on loopback, /status and the controls refuse a Host that names no loopback address") {
  fixture f;
  const uint16_t port = f.server.port();
  // A page of evil.example whose name was rebound to 127.0.0.1 sends its own name.
  for (const char* host : {"Host: evil.example:9464\r\n", "Host: 127.0.0.1.evil.example\r\n",
                           "Host: [::2]:9464\r\n"}) {
    CAPTURE(host);
    CHECK(http_request(port, "GET", "/status", host).status == 403);
    CHECK(http_request(port, "PUT", "/pause", host).status == 403);
    CHECK(http_request(port, "GET", "/metrics", host).status == 200);  // nothing to steal
  }
  CHECK(f.pauses == 0);
  for (const char* host : {"Host: localhost:9464\r\n", "Host: 127.0.0.1\r\n",
                           "Host: [::1]:9464\r\n", "Host: LOCALHOST\r\n"}) {
    CAPTURE(host);
    CHECK(http_request(port, "GET", "/status", host).status == 200);
  }
}
