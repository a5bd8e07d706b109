#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "connector/registry/schema_registry_client.h"

using namespace sluice;
using namespace std::chrono_literals;

namespace {

// A loopback HTTP server that answers each connection with the next scripted response and
// records each request's head. Serves exactly responses.size() connections, then stops.
class scripted_server {
 public:
  explicit scripted_server(std::vector<std::string> responses) {
    _fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(_fd, reinterpret_cast<sockaddr*>(&addr), &len);
    _port = ntohs(addr.sin_port);
    REQUIRE(::listen(_fd, 4) == 0);
    _thread = std::thread([this, responses = std::move(responses)] {
      for (const std::string& response : responses) {
        const int c = ::accept(_fd, nullptr, nullptr);
        if (c < 0) return;
        std::string head;
        char buffer[1024];
        while (head.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = ::read(c, buffer, sizeof buffer);
          if (n <= 0) break;
          head.append(buffer, static_cast<size_t>(n));
        }
        _requests.push_back(head);
        (void)!::write(c, response.data(), response.size());
        ::close(c);
      }
    });
  }
  ~scripted_server() {
    if (_thread.joinable()) _thread.join();
    ::close(_fd);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(_port) + "/ccompat/"; }
  // Every request's head, once the whole script was served.
  std::vector<std::string> requests() {
    if (_thread.joinable()) _thread.join();
    return _requests;
  }

 private:
  std::vector<std::string> _requests;
  int _fd = -1;
  int _port = 0;
  std::thread _thread;
};

std::string http(const std::string& status, const std::string& body) {
  return "HTTP/1.1 " + status +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

schema_registry_client_options options(const std::string& url, const std::string& user_info) {
  schema_registry_client_options o;
  o.url = url;
  o.http.user_info = user_info;
  o.http.timeout = 2000ms;
  o.backoff_initial = 10ms;
  o.backoff_max = 10ms;
  return o;
}

}  // namespace

TEST_CASE("the client sends basic auth to GET {url}/schemas/ids/{id}, and a 401 is refused") {
  scripted_server server({http("401 Unauthorized", R"({"error_code":40101,"message":"bad"})")});
  schema_registry_client client(options(server.url(), "sr:s3cret"), {});
  try {
    (void)client.schema(schema_id(42));
    FAIL("a 401 was accepted");
  } catch (const schema_source_refused& e) {
    CHECK(std::string(e.what()).find("HTTP 401") != std::string::npos);
    CHECK(std::string(e.what()).find("s3cret") == std::string::npos);
  }
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].rfind("GET /ccompat/schemas/ids/42 HTTP/1.1\r\n", 0) == 0);
  // "sr:s3cret" in base64.
  CHECK(requests[0].find("Authorization: Basic c3I6czNjcmV0\r\n") != std::string::npos);
}

TEST_CASE("a 503 is waited out, then the schema is served from memory without another request") {
  int degraded_calls = 0;
  std::string last_reason = "unset";
  schema_registry_hooks hooks;
  hooks.degraded = [&](const std::string& r) {
    ++degraded_calls;
    last_reason = r;
  };
  scripted_server server({http("503 Service Unavailable", R"({"error_code":50301})"),
                          http("200 OK", R"({"schema":"\"int\""})")});
  schema_registry_client client(options(server.url(), "sr:pw"), hooks);
  auto first = client.schema(schema_id(7));
  REQUIRE(first.ok());
  CHECK((*first)->text == R"("int")");
  auto again = client.schema(schema_id(7));  // the server has no third answer scripted
  REQUIRE(again.ok());
  CHECK(again->get() == first->get());
  CHECK(degraded_calls == 2);
  CHECK(last_reason.empty());
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);  // and none for the second call
  CHECK(requests[1].rfind("GET /ccompat/schemas/ids/7 HTTP/1.1\r\n", 0) == 0);
}

namespace {

// A loopback server that never answers: the kernel completes the connection (the listen
// backlog), nobody accepts or reads it.
class silent_server {
 public:
  silent_server() {
    _fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(_fd, reinterpret_cast<sockaddr*>(&addr), &len);
    _port = ntohs(addr.sin_port);
    REQUIRE(::listen(_fd, 4) == 0);
  }
  ~silent_server() { ::close(_fd); }
  silent_server(const silent_server&) = delete;
  silent_server& operator=(const silent_server&) = delete;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(_port); }

 private:
  int _fd = -1;
  int _port = 0;
};

}  // namespace

TEST_CASE("a stop request ends a registry request in flight, not its timeout") {
  silent_server server;
  auto o = options(server.url(), "");
  o.http.timeout = 20'000ms;
  std::atomic<bool> stop{false};
  schema_registry_hooks hooks;
  hooks.stop_requested = [&] { return stop.load(); };
  schema_registry_client client(o, hooks);
  std::thread stopper([&] {
    std::this_thread::sleep_for(200ms);
    stop = true;
  });
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(client.schema(schema_id(1)), schema_source_stopped);
  stopper.join();
  CHECK(std::chrono::steady_clock::now() - started < 5s);
}

TEST_CASE("a stop requested before the first request makes none") {
  scripted_server server({});  // serves no connection: a request would be refused or hang
  std::atomic<int> asked{0};
  schema_registry_hooks hooks;
  hooks.stop_requested = [&] { return ++asked > 0; };
  registry_http http(options(server.url(), "").http);
  const auto r = http.get(server.url() + "schemas/ids/1", hooks.stop_requested);
  CHECK(r.stopped);
  CHECK(r.status == 0);
  CHECK(asked == 1);
}

TEST_CASE("an answer larger than the bound is refused, not waited out as an outage") {
  scripted_server server({http("200 OK", R"({"schema":")" + std::string(5000, 'x') + R"("})")});
  auto o = options(server.url(), "");
  o.http.max_body_bytes = 1000;
  schema_registry_hooks hooks;
  hooks.stop_requested = [] { return false; };
  schema_registry_client client(o, hooks);
  try {
    (void)client.schema(schema_id(3));
    FAIL("an oversized answer was accepted");
  } catch (const schema_source_refused& e) {
    CHECK(std::string(e.what()).find("answer larger than 1000 bytes") != std::string::npos);
  }
  CHECK(server.requests().size() == 1);
}

TEST_CASE("the environment's proxy is not used for the registry") {
  silent_server proxy;  // a proxy that would hold the request until the stop
  ::setenv("http_proxy", proxy.url().c_str(), 1);
  ::setenv("HTTP_PROXY", proxy.url().c_str(), 1);
  ::setenv("ALL_PROXY", proxy.url().c_str(), 1);
  ::unsetenv("no_proxy");
  ::unsetenv("NO_PROXY");
  std::vector<std::string> reasons;
  std::atomic<bool> stop{false};
  schema_registry_hooks hooks;
  hooks.degraded = [&](const std::string& r) {
    reasons.push_back(r);
    stop = true;
  };
  hooks.stop_requested = [&] { return stop.load(); };
  std::thread stopper([&] {
    std::this_thread::sleep_for(1s);  // before the 2 s timeout: a held request gives no reason
    stop = true;
  });
  schema_registry_client client(options("http://127.0.0.1:1", ""), hooks);
  CHECK_THROWS_AS(client.schema(schema_id(1)), schema_source_stopped);
  stopper.join();
  ::unsetenv("http_proxy");
  ::unsetenv("HTTP_PROXY");
  ::unsetenv("ALL_PROXY");
  // Straight to port 1, refused at once, rather than a request held by the proxy.
  REQUIRE_FALSE(reasons.empty());
  CHECK(reasons.front().find("127.0.0.1 port 1") != std::string::npos);
}
