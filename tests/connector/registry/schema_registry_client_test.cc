#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "connector/registry/schema_registry_client.h"

using namespace sluice;
using namespace std::chrono_literals;

namespace {

// A registry nobody listens at: port 1 on the loopback refuses at once.
constexpr const char* nowhere = "http://127.0.0.1:1";

struct memory_store : schema_store {
  std::map<std::pair<std::string, int>, std::shared_ptr<const registered_schema>> rows;
  std::shared_ptr<const registered_schema> load(const std::string& url, schema_id id) override {
    const auto it = rows.find({url, id.value()});
    return it == rows.end() ? nullptr : it->second;
  }
  void save(const std::string& url, const registered_schema& s) override {
    rows[{url, s.id.value()}] = std::make_shared<registered_schema>(s);
  }
};

schema_registry_client_options options(std::string url) {
  schema_registry_client_options o;
  o.url = std::move(url);
  o.http.timeout = 1000ms;
  o.backoff_initial = 10ms;
  o.backoff_max = 20ms;
  return o;
}

}  // namespace

TEST_CASE("an unreachable registry is waited out in DEGRADED until a stop request ends it") {
  std::mutex m;
  std::vector<std::string> reasons;
  std::atomic<int> asked{0};
  schema_registry_hooks hooks;
  hooks.degraded = [&](const std::string& r) {
    std::lock_guard lock(m);
    reasons.push_back(r);
  };
  hooks.stop_requested = [&] { return ++asked > 20; };
  schema_registry_client client(options(nowhere), hooks);
  CHECK_THROWS_AS(client.schema(schema_id(1)), schema_source_stopped);
  REQUIRE(reasons.size() >= 2);
  CHECK(reasons.front().find("the schema registry at http://127.0.0.1:1 is unreachable") == 0);
  CHECK(reasons.back().empty());  // the wait is over: not DEGRADED on its account any more
}

TEST_CASE("a schema in the store is served without asking the registry") {
  auto store = std::make_shared<memory_store>();
  store->save(nowhere, registered_schema{schema_id(5), "AVRO", R"("long")"});
  schema_registry_hooks hooks;
  hooks.stop_requested = [] { return true; };  // any wait would throw
  schema_registry_client client(options(std::string(nowhere) + "/"), hooks, store);
  auto found = client.schema(schema_id(5));
  REQUIRE(found.ok());
  CHECK((*found)->text == R"("long")");
  CHECK_THROWS_AS(client.schema(schema_id(6)), schema_source_stopped);
}

TEST_CASE("a URL that is not http or https is refused, not waited for") {
  schema_registry_client client(options("ftp://127.0.0.1:1"), {});
  CHECK_THROWS_AS(client.schema(schema_id(1)), schema_source_refused);
}

TEST_CASE("credentials in a registry URL never reach a message") {
  // Up to the last '@': more than the user info, never less.
  CHECK(url_without_credentials("https://u:p@host:8081/x@y") == "https://***@y");
  // A password holding '/' (the reviewer's case) or '@'.
  CHECK(url_without_credentials("https://svc:pa/ss@reg:8081/x") == "https://***@reg:8081/x");
  CHECK(url_without_credentials("https://svc:p@ss@reg:8081") == "https://***@reg:8081");
  CHECK(url_without_credentials("http://host:8081") == "http://host:8081");
  CHECK(url_without_credentials("host@x") == "host@x");
  schema_registry_client client(options("http://user:pw@127.0.0.1:1"), {});
  CHECK(client.shown_url() == "http://***@127.0.0.1:1");
}

TEST_CASE("a wait that ends in an exception still stops counting as a waiter: DEGRADED clears") {
  std::vector<std::string> reasons;
  schema_registry_hooks hooks;
  hooks.degraded = [&](const std::string& r) {
    reasons.push_back(r);
    if (!r.empty()) throw std::runtime_error("state holder failed");
  };
  hooks.stop_requested = [] { return false; };
  schema_registry_client client(options(nowhere), hooks);
  CHECK_THROWS_WITH_AS(client.schema(schema_id(1)), "state holder failed", std::runtime_error);
  REQUIRE(reasons.size() == 2);
  CHECK_FALSE(reasons.front().empty());
  CHECK(reasons.back().empty());  // the count went back to 0
}

TEST_CASE("a schema id of 0 or below is an error value, without a registry request") {
  std::atomic<int> asked{0};
  schema_registry_hooks hooks;
  hooks.stop_requested = [&] {
    ++asked;
    return true;  // any request or wait would throw schema_source_stopped
  };
  schema_registry_client client(options(nowhere), hooks);
  for (const int id : {0, -1, -2147483647 - 1}) {
    auto found = client.schema(schema_id(id));
    REQUIRE_FALSE(found.ok());
    CHECK(found.err().code == error_code::unsupported);
    CHECK(found.err().message == "schema id " + std::to_string(id) + " is not a valid registry id");
  }
  CHECK(asked == 0);
}

TEST_CASE("the schema store is keyed on the registry URL without its user info") {
  CHECK(url_without_user_info("https://svc:pa/ss@reg:8081/x") == "https://reg:8081/x");
  CHECK(url_without_user_info("http://reg:8081/apis") == "http://reg:8081/apis");
  auto store = std::make_shared<memory_store>();
  store->save(nowhere, registered_schema{schema_id(5), "AVRO", R"("long")"});
  schema_registry_hooks hooks;
  hooks.stop_requested = [] { return true; };  // any request would throw
  schema_registry_client client(options("http://user:pw@127.0.0.1:1"), hooks, store);
  auto found = client.schema(schema_id(5));
  REQUIRE(found.ok());
  CHECK((*found)->text == R"("long")");
}

TEST_CASE("credentials to an http:// registry are warned of, without showing them") {
  schema_registry_client_options o;
  o.url = "http://reg:8081";
  CHECK(plaintext_credentials_warning(o).empty());  // no credentials: nothing to warn of
  o.http.user_info = "svc:pa55";
  const std::string warning = plaintext_credentials_warning(o);
  CHECK(warning.find("http://reg:8081") != std::string::npos);
  CHECK(warning.find("clear text") != std::string::npos);
  o.http.user_info.clear();
  o.url = "http://svc:pa55@reg:8081";
  const std::string in_url = plaintext_credentials_warning(o);
  CHECK(in_url.find("clear text") != std::string::npos);
  CHECK(in_url.find("pa55") == std::string::npos);
  o.url = "https://svc:pa55@reg:8081";
  o.http.user_info = "svc:pa55";
  CHECK(plaintext_credentials_warning(o).empty());
}

namespace {

// A registry that knows no schema: every GET answers 404 with Confluent's 40403, counted.
struct unknown_ids_registry {
  int listener = -1;
  uint16_t port = 0;
  std::atomic<int> asked{0};
  std::atomic<bool> done{false};
  std::thread server;
  unknown_ids_registry() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    REQUIRE(::listen(listener, 8) == 0);
    server = std::thread([this] {
      while (!done) {
        const int c = ::accept(listener, nullptr, nullptr);
        if (c < 0) continue;
        char buf[4096];
        std::string request;
        while (request.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          request.append(buf, static_cast<size_t>(n));
        }
        if (!done) ++asked;
        const std::string body = R"({"error_code":40403,"message":"Schema not found"})";
        const std::string answer =
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
        ::close(c);
      }
    });
  }
  ~unknown_ids_registry() {
    done = true;
    const int c = ::socket(AF_INET, SOCK_STREAM, 0);  // wakes accept()
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    ::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::close(c);
    server.join();
    ::close(listener);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

}  // namespace

TEST_CASE("an id the registry does not know is answered from memory until it expires") {
  unknown_ids_registry registry;
  schema_registry_client_options o = options(registry.url());
  o.unknown_id_ttl = 300ms;
  o.unknown_ids_max = 2;
  schema_registry_client client(o, {});
  for (int i = 0; i < 5; ++i) {
    const auto r = client.schema(schema_id(7));
    REQUIRE_FALSE(r.ok());
    CHECK(r.err().message.find("7") != std::string::npos);
  }
  CHECK(registry.asked == 1);  // once, not per message
  // Bounded: two more unknown ids push one out, and whichever it was is asked again.
  (void)client.schema(schema_id(8));
  (void)client.schema(schema_id(9));
  CHECK(registry.asked == 3);
  for (int id : {7, 8, 9})
    (void)client.schema(schema_id(id));
  CHECK(registry.asked >= 4);
  // Expired: the registry may have learnt it since; asked once again, then remembered anew.
  std::this_thread::sleep_for(350ms);
  const int before = registry.asked;
  (void)client.schema(schema_id(9));
  (void)client.schema(schema_id(9));
  CHECK(registry.asked == before + 1);
}
