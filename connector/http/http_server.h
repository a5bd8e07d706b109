#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "connector/http/connect_backend.h"
#include "connector/http/status_source.h"

struct mg_connection;
struct mg_context;

namespace sluice {

class metrics_registry;

// The HTTP server could not start (address in use, unresolvable host, bad address).
class http_server_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What PUT /pause and PUT /resume do, and who may ask. The functions are called on an HTTP
// thread: they must be thread-safe and quick (set a flag the pipeline loop reads). An empty
// function answers 501.
struct http_controls {
  std::function<void()> pause;
  std::function<void()> resume;
  // http.auth.token: when set, PUT /pause and /resume need "Authorization: Bearer <token>"
  // (401 otherwise). When empty they are open on a loopback address only: on any other
  // address (0.0.0.0 in a container) they answer 403, since anyone who reaches the port
  // could stop replication. The GET endpoints stay open (Prometheus has no token to send).
  std::string bearer_token{};
  // Kafka Connect's REST API (connect_api.h): served when set; the writes need the token as
  // above, as a bearer token or as the password of HTTP Basic (what Connect tools send).
  connect_backend* connect = nullptr;
};

// sluice's HTTP endpoint (SPEC §5-§6), on civetweb with four worker threads:
//
//   GET /metrics   Prometheus text 0.0.4 of the registry
//   GET /healthz   200 "ok" unless FAILED, else 503 and the state's name
//   GET /status    Kafka Connect's connector status shape plus partitions and last error
//                  (status_json.h)
//   PUT /pause     202, after calling controls.pause; 409 in FAILED or DRAINING;
//                  401 without the bearer token when one is set, 403 when none is set and
//                  the address is not a loopback one (http_controls)
//   PUT /resume    202, after calling controls.resume; 409, 401, 403 likewise
//   /, /connectors/…, /connector-plugins   Kafka Connect's REST API (connect_api.h), when
//                  controls.connect is set: GETs as /status, writes as the controls
//   anything else  404; a known path with another method 405 (with Allow)
//
// The listen address is `metrics.listen`: "host:port", "[v6]:port", or just a port (then
// 127.0.0.1: loopback unless asked otherwise). A host name is resolved once, at start.
// Empty: disabled (start() does nothing). Port 0 picks a free port (tests).
//
// Lifecycle: construct (no I/O) → start() → … → stop() (or the destructor). registry,
// status and the controls must outlive stop(). Threading: start()/stop() on one thread
// (not from a handler); handlers run on civetweb's threads and call status.status(),
// status.state() and the controls from there, concurrently.
class http_server {
 public:
  // metrics: GET /metrics' body (the current registry's exposition), called on the HTTP
  // threads.
  http_server(std::string listen, std::function<std::string()> metrics, const status_source& status,
              http_controls controls);
  http_server(std::string listen, metrics_registry& registry, const status_source& status,
              http_controls controls);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Binds and starts serving; throws http_server_error with the address and the reason
  // (e.g. "address already in use") when it cannot.
  void start();
  // Stops serving and waits for the handlers in flight. Idempotent.
  void stop();

  bool running() const { return _context != nullptr; }
  // The address bound, with the actual port: "127.0.0.1:9464", "[::1]:9464". Empty when
  // not running.
  const std::string& listening_address() const { return _bound; }
  uint16_t port() const { return _port; }
  // "host:pid", as /status reports it.
  const std::string& worker_id() const { return _worker_id; }

 private:
  static int dispatch(mg_connection* conn, void* self);
  int handle(mg_connection* conn);
  int control(mg_connection* conn, const std::function<void()>& action);
  // 0 when the request may reach `what` (the controls, or /status beyond loopback), else the
  // status it was answered with: 401 without the token when one is set, 403 beyond loopback
  // when none is.
  int refuse_unauthorized(mg_connection* conn, std::string_view what) const;
  int serve_connect(mg_connection* conn, std::string_view method, std::string_view path);

  const std::string _listen;
  const std::function<std::string()> _metrics;
  const status_source& _status;
  const http_controls _controls;
  const std::string _worker_id;
  std::string _host;  // numeric address bound
  bool _ipv6 = false;
  bool _loopback = true;  // the address bound is a loopback one
  std::string _bound;
  uint16_t _port = 0;
  mg_context* _context = nullptr;
};

}  // namespace sluice
