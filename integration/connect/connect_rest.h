#pragma once

// The Kafka Connect worker of the `connect` fixture (services/connect.sh) through its REST API,
// as the tests of a takeover from a Connect connector (issue 28) and of Connect's REST parity
// (issue 29) drive it. Requests go through curl, as registry_admin.h's do; bodies are JSON
// text, read with plain string searches (the answers are small and their shapes fixed).

#include <string>
#include <vector>

namespace sluice::testing {

// connect.url in the run dir: http://127.0.0.1:PORT.
std::string connect_url();

struct rest_answer {
  int status = 0;
  std::string body;
};

// One request to the worker; a non-empty body is sent as application/json. Throws only when
// the worker cannot be reached.
rest_answer connect_rest(const std::string& method, const std::string& path,
                         const std::string& body = "");

// POST /connectors with a {"name": ..., "config": {...}} text; fails the test unless 201.
void create_connector(const std::string& connector_json);

// The states in GET /connectors/<name>/status: the connector's first, then each task's
// (e.g. {"RUNNING", "RUNNING"}); empty when the worker does not know the connector.
std::vector<std::string> connector_states(const std::string& name);

// The connector and at least one task RUNNING, within timeout_seconds; fails the test (with
// the status body, which holds a failed task's trace) otherwise.
void wait_running(const std::string& name, int timeout_seconds = 60);

// PUT /connectors/<name>/stop (KIP-875), then waits until the status says STOPPED with no
// task left: its tasks have committed their offsets and left the consumer group.
void stop_connector(const std::string& name, int timeout_seconds = 60);

// DELETE /connectors/<name>; fails the test unless 204 and the worker forgets it.
void delete_connector(const std::string& name);

}  // namespace sluice::testing
