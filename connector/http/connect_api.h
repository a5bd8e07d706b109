#pragma once

#include <string>
#include <string_view>

#include "connector/http/connect_backend.h"

namespace sluice {

// A request as connect_api sees it: no HTTP library in sight (the server has authenticated
// it: `authorized` says whether the token came with it).
struct connect_request {
  std::string_view method;
  std::string_view path;   // decoded, without the query
  std::string_view query;  // "expand=status&expand=info", undecoded
  std::string_view body;
};

struct connect_response {
  int status = 200;
  std::string body;             // JSON, or empty
  const char* allow = nullptr;  // with 405: the methods the path takes
};

// Kafka Connect's REST API for the one connector this process is a member of, with Connect's
// paths, verbs, JSON shapes, status codes and error body ({"error_code", "message"}) —
// Connect 4.1's ConnectorsResource, ConnectorPluginsResource and RootResource:
//
//   GET  /                                    ServerInfo
//   GET  /connector-plugins                   [PluginInfo]: sluice itself
//   GET  /connectors[?expand=status&expand=info]
//   GET  /connectors/{n}  /config  /status  /tasks  /topics  /tasks/{id}/status
//   PUT  /connectors/{n}/pause  /resume                            202: every member obeys
//   PUT  /connectors/{n}/stop                                      204: every member obeys
//   POST /connectors/{n}/restart[?includeTasks=&onlyFailed=]       204, or 202 + status
//   POST /connectors/{n}/tasks/{id}/restart                        204
//   GET  PATCH  DELETE /connectors/{n}/offsets                     KIP-875, sink shape
//   POST /connectors, PUT …/config, DELETE /connectors/{n}         409: the config is a file
//
// Every member is one task. DEGRADED shows as RUNNING with a trace, never FAILED (tools that
// restart FAILED tasks would loop); the native GET /status keeps it.
//
// Threading: handle() is called on the HTTP threads, concurrently; it keeps no state.
class connect_api {
 public:
  explicit connect_api(connect_backend& backend) : _backend(backend) {}

  // Whether `path` is one of Connect's (the server routes it here).
  static bool serves(std::string_view path);
  // Whether the request changes something (it then needs the token).
  static bool writes(std::string_view method) { return method != "GET" && method != "HEAD"; }

  connect_response handle(const connect_request& r) const;

 private:
  connect_response connector(const connect_request& r, const std::string& name,
                             std::string_view rest) const;
  connect_response offsets(const connect_request& r) const;

  connect_backend& _backend;
};

}  // namespace sluice
