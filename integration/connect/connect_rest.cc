#include "integration/connect/connect_rest.h"

#include <doctest/doctest.h>

#include <chrono>
#include <regex>
#include <stdexcept>

#include "integration/support/fixture_files.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string status_body(const std::string& name) {
  return connect_rest("GET", "/connectors/" + name + "/status").body;
}

}  // namespace

std::string connect_url() {
  std::string url = read_file(run_dir() + "/connect.url");
  while (!url.empty() && (url.back() == '\n' || url.back() == ' '))
    url.pop_back();
  REQUIRE_MESSAGE(!url.empty(), "no connect.url in the run dir (connect.sh start)");
  return url;
}

rest_answer connect_rest(const std::string& method, const std::string& path,
                         const std::string& body) {
  std::string command = "curl -sS -m 30 -X " + method + " -w '\\n%{http_code}'";
  if (!body.empty()) {
    command += " -H 'Content-Type: application/json' --data-binary @'" +
               write_run_file("connect_request", body) + "'";
  }
  const std::string out = run_shell(command + " '" + connect_url() + path + "' 2>&1");
  // The body, a newline, then the status code (curl's -w).
  const size_t split = out.rfind('\n');
  if (split == std::string::npos) throw std::runtime_error("connect_rest: " + out);
  return {std::stoi(out.substr(split + 1)), out.substr(0, split)};
}

void create_connector(const std::string& connector_json) {
  const rest_answer a = connect_rest("POST", "/connectors", connector_json);
  REQUIRE_MESSAGE(a.status == 201, "POST /connectors: " << a.status << " " << a.body);
}

std::vector<std::string> connector_states(const std::string& name) {
  const rest_answer a = connect_rest("GET", "/connectors/" + name + "/status");
  if (a.status != 200) return {};
  static const std::regex state(R"re("state":"([A-Z_]+)")re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(a.body.begin(), a.body.end(), state);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

void wait_running(const std::string& name, int timeout_seconds) {
  const bool running = wait_until(
      [&] {
        const std::vector<std::string> states = connector_states(name);
        if (states.size() < 2) return false;
        for (const std::string& s : states)
          if (s != "RUNNING") return false;
        return true;
      },
      std::chrono::seconds(timeout_seconds));
  REQUIRE_MESSAGE(running, name << " is not running: " << status_body(name));
}

void stop_connector(const std::string& name, int timeout_seconds) {
  const rest_answer a = connect_rest("PUT", "/connectors/" + name + "/stop");
  REQUIRE_MESSAGE((a.status == 202 || a.status == 204), "stop: " << a.status << " " << a.body);
  const bool stopped =
      wait_until([&] { return connector_states(name) == std::vector<std::string>{"STOPPED"}; },
                 std::chrono::seconds(timeout_seconds));
  REQUIRE_MESSAGE(stopped, name << " did not stop: " << status_body(name));
}

void delete_connector(const std::string& name) {
  const rest_answer a = connect_rest("DELETE", "/connectors/" + name);
  REQUIRE_MESSAGE(a.status == 204, "DELETE: " << a.status << " " << a.body);
  // The answer comes once the deletion is in the config topic; the worker forgets the
  // connector when it reads it back.
  const bool gone =
      wait_until([&] { return connect_rest("GET", "/connectors/" + name).status == 404; },
                 std::chrono::seconds(30));
  REQUIRE_MESSAGE(gone, name << " still known after DELETE: " << status_body(name));
}

}  // namespace sluice::testing
