// Kafka Connect's REST API over a fake backend: paths, verbs, status codes and JSON shapes
// as Connect 4.1 answers them (ConnectorsResource), and what reaches the backend.
#include "connector/http/connect_api.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

struct fake_backend : connect_backend {
  connect_view v;
  std::vector<std::string> calls;
  std::vector<connect_offset> altered;
  bool stopped = false;

  fake_backend() {
    v.name = "orders";
    v.state = "RUNNING";
    v.worker_id = "a:1";
    v.tasks = {{0, "RUNNING", "a:1", ""}, {1, "RUNNING", "b:2", "DEGRADED: postgres away"}};
    v.config = {{"name", "orders"}, {"connector.class", "sluice"}, {"topics", "t1"}};
    v.topics = {"t1"};
    v.version = "1.2.3";
    v.commit = "abc";
  }
  connect_view view() const override { return v; }
  void set_target(sink::target_state s) override {
    calls.push_back(std::string("target ") + sink::to_string(s));
  }
  void restart(bool only_failed) override {
    calls.push_back(only_failed ? "restart failed" : "restart all");
  }
  bool restart_task(int id) override {
    calls.push_back("restart task " + std::to_string(id));
    return id < 2;
  }
  std::pair<std::vector<connect_offset>, connect_answer> offsets() override {
    return {{{"t1", 0, 42}, {"t1", 1, std::nullopt}}, {200, ""}};
  }
  connect_answer alter_offsets(const std::vector<connect_offset>& o) override {
    if (!stopped) return {400, "Connectors must be in the STOPPED state"};
    altered = o;
    return {200, "The offsets for this connector have been altered successfully"};
  }
  connect_answer reset_offsets() override {
    if (!stopped) return {400, "Connectors must be in the STOPPED state"};
    return {200, "The offsets for this connector have been reset successfully"};
  }
};

connect_response ask(fake_backend& b, std::string_view method, std::string_view path,
                     std::string_view query = {}, std::string_view body = {}) {
  const connect_api api(b);
  return api.handle({method, path, query, body});
}

}  // namespace

TEST_CASE("connect api: the GET endpoints answer Connect's shapes") {
  fake_backend b;
  CHECK(ask(b, "GET", "/connectors").body == R"(["orders"])");
  CHECK(ask(b, "GET", "/").body == R"({"version":"1.2.3","commit":"abc","kafka_cluster_id":""})");
  CHECK(ask(b, "GET", "/connector-plugins").body ==
        R"([{"class":"sluice","type":"sink","version":"1.2.3"}])");
  const std::string status =
      R"({"name":"orders","connector":{"state":"RUNNING","worker_id":"a:1","version":"1.2.3"},)"
      R"("tasks":[{"id":0,"state":"RUNNING","worker_id":"a:1","version":"1.2.3"},)"
      R"({"id":1,"state":"RUNNING","worker_id":"b:2","trace":"DEGRADED: postgres away",)"
      R"("version":"1.2.3"}],)"
      R"("type":"sink"})";
  CHECK(ask(b, "GET", "/connectors/orders/status").body == status);
  CHECK(ask(b, "GET", "/connectors/orders/status/").body == status);  // a trailing slash
  const std::string info =
      R"({"name":"orders","config":{"name":"orders","connector.class":"sluice","topics":"t1"},)"
      R"("tasks":[{"connector":"orders","task":0},{"connector":"orders","task":1}],)"
      R"("type":"sink"})";
  CHECK(ask(b, "GET", "/connectors/orders").body == info);
  CHECK(ask(b, "GET", "/connectors/orders/config").body ==
        R"({"name":"orders","connector.class":"sluice","topics":"t1"})");
  CHECK(ask(b, "GET", "/connectors/orders/topics").body == R"({"orders":{"topics":["t1"]}})");
  CHECK(
      ask(b, "GET", "/connectors/orders/tasks")
          .body.starts_with(R"([{"id":{"connector":"orders","task":0},"config":{"name":"orders")"));
  CHECK(ask(b, "GET", "/connectors/orders/tasks/1/status").body ==
        R"({"id":1,"state":"RUNNING","worker_id":"b:2","trace":"DEGRADED: postgres away",)"
        R"("version":"1.2.3"})");
  CHECK(ask(b, "GET", "/connectors/orders/tasks/7/status").status == 404);
  // ?expand= repeated: both, keyed by the connector's name.
  CHECK(ask(b, "GET", "/connectors", "expand=status&expand=info").body ==
        R"({"orders":{"status":)" + status + R"(,"info":)" + info + "}}");
  CHECK(ask(b, "GET", "/connectors", "expand=info").body == R"({"orders":{"info":)" + info + "}}");
  // Only committed offsets are listed, in KIP-875's sink shape.
  CHECK(ask(b, "GET", "/connectors/orders/offsets").body ==
        R"({"offsets":[{"partition":{"kafka_topic":"t1","kafka_partition":0},)"
        R"("offset":{"kafka_offset":42}}]})");
}

TEST_CASE("connect api: an unknown connector or path is Connect's 404 error body") {
  fake_backend b;
  const auto r = ask(b, "GET", "/connectors/other/status");
  CHECK(r.status == 404);
  CHECK(r.body == R"({"error_code":404,"message":"No status found for connector other"})");
  CHECK(ask(b, "GET", "/connectors/other").body ==
        R"({"error_code":404,"message":"Connector other not found"})");
  CHECK(ask(b, "GET", "/connectors/orders/nothing").status == 404);
  CHECK(ask(b, "GET", "/connectors/orders/tasks/x/status").status == 404);
}

TEST_CASE("connect api: state changes reach the backend with Connect's codes") {
  fake_backend b;
  CHECK(ask(b, "PUT", "/connectors/orders/pause").status == 202);
  CHECK(ask(b, "PUT", "/connectors/orders/resume").status == 202);
  CHECK(ask(b, "PUT", "/connectors/orders/stop").status == 204);
  CHECK(ask(b, "GET", "/connectors/orders/pause").status == 405);
  // restart without parameters: 204, no body; with them: 202 and the status, RESTARTING.
  auto r = ask(b, "POST", "/connectors/orders/restart");
  CHECK(r.status == 204);
  CHECK(r.body.empty());
  r = ask(b, "POST", "/connectors/orders/restart", "includeTasks=true&onlyFailed=true");
  CHECK(r.status == 202);
  CHECK(r.body.find(R"("state":"RESTARTING")") == std::string::npos);  // none FAILED
  r = ask(b, "POST", "/connectors/orders/restart", "includeTasks=true");
  CHECK(r.status == 202);
  CHECK(r.body.find(R"({"id":1,"state":"RESTARTING")") != std::string::npos);
  CHECK(ask(b, "POST", "/connectors/orders/tasks/1/restart").status == 204);
  CHECK(ask(b, "POST", "/connectors/orders/tasks/5/restart").status == 404);
  CHECK(b.calls == std::vector<std::string>{"target PAUSED", "target RUNNING", "target STOPPED",
                                            "restart all", "restart failed", "restart all",
                                            "restart task 1", "restart task 5"});
}

TEST_CASE("connect api: the configuration is a file, writes to it are refused with 409") {
  fake_backend b;
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/connectors"},
                                                        {"PUT", "/connectors/orders/config"},
                                                        {"PATCH", "/connectors/orders/config"},
                                                        {"DELETE", "/connectors/orders"}}) {
    const auto r = ask(b, method, path, "", R"({"name":"x","config":{}})");
    CHECK_MESSAGE(r.status == 409, method << " " << path);
    CHECK(r.body.starts_with(R"({"error_code":409,"message":)"));
  }
  CHECK(b.calls.empty());
}

TEST_CASE("connect api: PATCH and DELETE of offsets, refused unless STOPPED, bodies checked") {
  fake_backend b;
  const std::string body =
      R"({"offsets":[{"partition":{"kafka_topic":"t1","kafka_partition":0},)"
      R"("offset":{"kafka_offset":7}},)"
      R"({"partition":{"kafka_topic":"t1","kafka_partition":1},"offset":null}]})";
  auto r = ask(b, "PATCH", "/connectors/orders/offsets", "", body);
  CHECK(r.status == 400);
  CHECK(r.body.starts_with(R"({"error_code":400,)"));
  CHECK(ask(b, "DELETE", "/connectors/orders/offsets").status == 400);
  b.stopped = true;
  r = ask(b, "PATCH", "/connectors/orders/offsets", "", body);
  CHECK(r.status == 200);
  CHECK(r.body == R"({"message":"The offsets for this connector have been altered successfully"})");
  REQUIRE(b.altered.size() == 2);
  CHECK(b.altered[0].topic == "t1");
  CHECK(b.altered[0].offset == 7);
  CHECK(b.altered[1].partition == 1);
  CHECK(!b.altered[1].offset);  // null: cleared
  CHECK(ask(b, "DELETE", "/connectors/orders/offsets").body ==
        R"({"message":"The offsets for this connector have been reset successfully"})");
  // Malformed bodies: 400, the backend not called.
  b.altered.clear();
  for (const char* bad :
       {"", "[]", R"({"offsets":[]})", R"({"offsets":[{"partition":{"kafka_topic":"t1"}}]})",
        R"({"offsets":[{"partition":{"kafka_topic":"t1","kafka_partition":-1},"offset":null}]})",
        R"({"offsets":[{"partition":{"kafka_topic":"t1","kafka_partition":0},)"
        R"("offset":{"kafka_offset":-3}}]})",
        R"({"offsets":[{"partition":{"kafka_topic":"t1","kafka_partition":0}}]})"}) {
    CHECK_MESSAGE(ask(b, "PATCH", "/connectors/orders/offsets", "", bad).status == 400, bad);
  }
  CHECK(b.altered.empty());
}

TEST_CASE("connect api: which paths are Connect's") {
  CHECK(connect_api::serves("/"));
  CHECK(connect_api::serves("/connectors"));
  CHECK(connect_api::serves("/connectors/x/status"));
  CHECK(connect_api::serves("/connector-plugins"));
  CHECK_FALSE(connect_api::serves("/status"));
  CHECK_FALSE(connect_api::serves("/metrics"));
  CHECK_FALSE(connect_api::serves("/connectorsx"));
  CHECK(connect_api::writes("PATCH"));
  CHECK_FALSE(connect_api::writes("GET"));
}

}  // namespace sluice
