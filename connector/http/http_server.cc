#include "connector/http/http_server.h"

#include <unistd.h>

#include <civetweb.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "connector/base/log.h"
#include "connector/base/worker_id.h"
#include "connector/http/bind_address.h"
#include "connector/http/connect_api.h"
#include "connector/http/request_auth.h"
#include "connector/http/status_json.h"
#include "connector/metrics/metrics_registry.h"
#include "core/model/json_text.h"

namespace sluice {
namespace {

constexpr const char* k_text = "text/plain; charset=utf-8";
constexpr const char* k_json = "application/json";
// A PATCH of offsets for thousands of partitions stays far below.
constexpr int64_t k_max_body = 1 << 20;

// civetweb's messages while start() runs on this thread, to explain a failure to start.
thread_local std::string* t_start_log = nullptr;

int log_message(const mg_connection*, const char* message) {
  if (t_start_log != nullptr) {
    if (!t_start_log->empty()) *t_start_log += "; ";
    *t_start_log += message;
  } else {
    SLUICE_LOG(warn, "http", message);
  }
  return 1;  // handled: civetweb prints nothing
}

void respond(mg_connection* conn, int status, const char* content_type, std::string_view body,
             const char* allow = nullptr) {
  mg_response_header_start(conn, status);
  mg_response_header_add(conn, "Content-Type", content_type, -1);
  const std::string length = std::to_string(body.size());
  mg_response_header_add(conn, "Content-Length", length.c_str(), -1);
  if (allow != nullptr) mg_response_header_add(conn, "Allow", allow, -1);
  if (status == 401)
    mg_response_header_add(conn, "WWW-Authenticate", "Bearer realm=\"sluice\"", -1);
  mg_response_header_send(conn);
  if (!body.empty()) mg_write(conn, body.data(), body.size());
}

// Kafka Connect's error body.
void respond_error(mg_connection* conn, int status, std::string_view message,
                   const char* allow = nullptr) {
  std::string body = "{\"error_code\":" + std::to_string(status) + ",\"message\":";
  append_json_string(body, message);
  body += '}';
  respond(conn, status, k_json, body, allow);
}

}  // namespace

http_server::http_server(std::string listen, metrics_registry& registry,
                         const status_source& status, http_controls controls)
    : http_server(
          std::move(listen), [&registry] { return registry.serialize(); }, status,
          std::move(controls)) {}

http_server::http_server(std::string listen, std::function<std::string()> metrics,
                         const status_source& status, http_controls controls)
    : _listen(std::move(listen)),
      _metrics(std::move(metrics)),
      _status(status),
      _controls(std::move(controls)),
      _worker_id(local_worker_id()) {}

http_server::~http_server() {
  stop();
}

void http_server::start() {
  if (_context != nullptr || _listen.empty()) return;
  static std::once_flag initialized;
  std::call_once(initialized, [] { mg_init_library(0); });

  const bind_address address = resolve(_listen);
  const std::string ports = address.civetweb();
  // Four threads: a scrape, the probes, and room for a Connect offsets change (which may wait
  // seconds for the members to stop); a stuck client frees its thread after 10 s.
  // clang-format off
  const char* options[] = {"listening_ports", ports.c_str(),
                           "num_threads", "4",
                           "request_timeout_ms", "10000",
                           "enable_keep_alive", "no",
                           nullptr};
  // clang-format on
  mg_callbacks callbacks{};
  callbacks.log_message = &log_message;
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = options;
  char error_text[256] = {};
  mg_error_data error{};
  error.text = error_text;
  error.text_buffer_size = sizeof error_text;

  std::string start_log;
  t_start_log = &start_log;
  _context = mg_start2(&init, &error);
  t_start_log = nullptr;
  if (_context == nullptr) {
    std::string why = start_log.empty() ? std::string(error_text) : start_log;
    throw http_server_error(
        "cannot listen on " + ports +
        " (metrics.listen): " + (why.empty() ? "unknown error" : why) +
        (why.find("in use") != std::string::npos ? " (is another process using the port?)" : ""));
  }
  mg_server_port bound{};
  if (mg_get_server_ports(_context, 1, &bound) == 1 && bound.port > 0) {
    _port = static_cast<uint16_t>(bound.port);
  } else {
    _port = static_cast<uint16_t>(std::stoi(address.port));
  }
  _host = address.host;
  _ipv6 = address.ipv6;
  _loopback = is_loopback(_host, _ipv6);
  _bound = address.ipv6 ? "[" + address.host + "]:" + std::to_string(_port)
                        : address.host + ":" + std::to_string(_port);
  mg_set_request_handler(_context, "/", &http_server::dispatch, this);
  SLUICE_LOG(info, "http",
             "serving /metrics, /healthz, /readyz, /status, /pause, /resume"
                 << (_controls.connect != nullptr ? " and Connect's REST API" : "") << " on "
                 << _bound);
  if (!_loopback && _controls.bearer_token.empty()) {
    SLUICE_LOG(warn, "http",
               "PUT /pause and /resume are disabled: " << _bound
                                                       << " is not a loopback address and "
                                                          "http.auth.token is not set");
  }
}

void http_server::stop() {
  if (_context == nullptr) return;
  // civetweb's listener thread polls in 2-second quanta (SOCKET_TIMEOUT_QUANTUM) and
  // mg_stop() waits for it: connecting to the listener wakes it, so stopping takes
  // milliseconds rather than up to 2 s (a DRAINING exit, every test).
  std::atomic<bool> stopped{false};
  std::thread waker([&] {
    while (!stopped.load()) {
      poke(_host, _ipv6, _port);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  mg_stop(_context);
  stopped.store(true);
  waker.join();
  _context = nullptr;
  _bound.clear();
  _port = 0;
}

int http_server::dispatch(mg_connection* conn, void* self) {
  try {
    return static_cast<http_server*>(self)->handle(conn);
  } catch (const std::exception& e) {
    respond_error(conn, 500, e.what());
  } catch (...) {
    respond_error(conn, 500, "internal error");
  }
  return 500;
}

int http_server::handle(mg_connection* conn) {
  const mg_request_info* request = mg_get_request_info(conn);
  const std::string_view method = request->request_method ? request->request_method : "";
  const std::string_view path = request->local_uri ? request->local_uri : "";

  if (_controls.connect != nullptr && connect_api::serves(path)) {
    return serve_connect(conn, method, path);
  }
  const bool is_get =
      path == "/metrics" || path == "/healthz" || path == "/readyz" || path == "/status";
  const bool is_put = path == "/pause" || path == "/resume";
  if (!is_get && !is_put) {
    respond_error(conn, 404, "no such endpoint: " + std::string(path));
    return 404;
  }
  if (is_get && method != "GET") {
    respond_error(conn, 405, "use GET", "GET");
    return 405;
  }
  if (is_put && method != "PUT") {
    respond_error(conn, 405, "use PUT", "PUT");
    return 405;
  }

  if (path == "/metrics") {
    respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", _metrics());
    return 200;
  }
  if (path == "/healthz" || path == "/readyz") {
    // Liveness: the process works (also while DEGRADED, PAUSED, STOPPED — the operator's
    // target state, the process waiting to be resumed —, starting or draining); only FAILED
    // wants a restart. Readiness: RUNNING only.
    const connector_state s = _status.state();
    const bool ok =
        path == "/healthz" ? s != connector_state::failed : s == connector_state::running;
    if (ok) {
      respond(conn, 200, k_text, "ok\n");
      return 200;
    }
    respond(conn, 503, k_text, std::string(to_string(s)) + "\n");
    return 503;
  }
  // What a browser must not reach through a rebound DNS name: the state, its reasons, the
  // controls (the probes and metrics carry nothing a page could use).
  if ((path == "/status" || is_put) && _loopback && !loopback_host(mg_get_header(conn, "Host"))) {
    respond_error(conn, 403, "the Host header names no loopback address (a DNS rebinding guard)");
    return 403;
  }
  if (path == "/status") {
    // Beyond loopback the status needs the token too: its reasons may quote row values.
    if (!_loopback) {
      if (const int refused = refuse_unauthorized(conn, "/status")) return refused;
    }
    respond(conn, 200, k_json, to_json(_status.status(), _worker_id));
    return 200;
  }
  return control(conn, path == "/pause" ? _controls.pause : _controls.resume);
}

int http_server::serve_connect(mg_connection* conn, std::string_view method,
                               std::string_view path) {
  if (_loopback && !loopback_host(mg_get_header(conn, "Host"))) {
    respond_error(conn, 403, "the Host header names no loopback address (a DNS rebinding guard)");
    return 403;
  }
  // Writes always need the token (or loopback without one, as /pause); reads beyond loopback
  // too, as /status: a trace may quote row values.
  if (connect_api::writes(method) || !_loopback) {
    if (const int refused = refuse_unauthorized(conn, "the Connect REST API")) return refused;
  }
  std::string body;
  const mg_request_info* request = mg_get_request_info(conn);
  if (request->content_length > k_max_body) {
    respond_error(conn, 413, "request body larger than 1 MiB");
    return 413;
  }
  // A Content-Length, or none (chunked: -1): read up to the bound either way.
  if (request->content_length != 0) {
    char chunk[8192];
    for (int n; (n = mg_read(conn, chunk, sizeof chunk)) > 0;) {
      body.append(chunk, static_cast<size_t>(n));
      if (static_cast<int64_t>(body.size()) > k_max_body) {
        respond_error(conn, 413, "request body larger than 1 MiB");
        return 413;
      }
    }
  }
  const connect_api api(*_controls.connect);
  connect_request r;
  r.method = method;
  r.path = path;
  r.query = request->query_string ? request->query_string : "";
  r.body = body;
  const connect_response answer = api.handle(r);
  respond(conn, answer.status, k_json, answer.body, answer.allow);
  return answer.status;
}

int http_server::refuse_unauthorized(mg_connection* conn, std::string_view what) const {
  const bool plural = what == "pause and resume";
  const std::string verb = plural ? " need " : " needs ";
  if (!_controls.bearer_token.empty()) {
    const char* header = mg_get_header(conn, "Authorization");
    std::optional<std::string> given;
    if (const auto bearer = bearer_token(header)) {
      given = std::string(*bearer);
    } else {
      given = basic_password(header);
    }
    if (given && same_secret(*given, _controls.bearer_token)) return 0;
    respond_error(conn, 401,
                  std::string(what) + verb +
                      "\"Authorization: Bearer <http.auth.token>\" (or the token as the "
                      "password of HTTP Basic)");
    return 401;
  }
  if (_loopback) return 0;
  respond_error(conn, 403,
                std::string(what) + (plural ? " are" : " is") +
                    " disabled: the HTTP endpoint listens beyond loopback (" + _bound +
                    ") and http.auth.token is not set");
  return 403;
}

int http_server::control(mg_connection* conn, const std::function<void()>& action) {
  if (const int refused = refuse_unauthorized(conn, "pause and resume")) return refused;
  const connector_state s = _status.state();
  // A FAILED connector needs a restart, not a pause; a draining one is on its way out. A
  // STOPPED one (the target state) may be resumed.
  if (s == connector_state::failed || s == connector_state::draining) {
    respond_error(conn, 409, std::string("the connector is ") + to_string(s));
    return 409;
  }
  if (!action) {
    respond_error(conn, 501, "not supported by this process");
    return 501;
  }
  action();
  respond(conn, 202, k_text, "");
  return 202;
}

}  // namespace sluice
