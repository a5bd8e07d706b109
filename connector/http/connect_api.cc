#include "connector/http/connect_api.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include <simdjson.h>

#include "core/model/json_text.h"

namespace sluice {
namespace {

// What GET /connector-plugins names sluice as: no Java class stands behind it.
constexpr std::string_view k_plugin_class = "sluice";

connect_response error(int status, std::string_view message, const char* allow = nullptr) {
  std::string body = "{\"error_code\":" + std::to_string(status) + ",\"message\":";
  append_json_string(body, message);
  body += '}';
  return {status, std::move(body), allow};
}

connect_response message(int status, std::string_view text) {
  std::string body = "{\"message\":";
  append_json_string(body, text);
  body += '}';
  return {status, std::move(body)};
}

connect_response method_not_allowed(const char* allow) {
  return error(405, "HTTP 405 Method Not Allowed", allow);
}

// The values of `key` in an undecoded query string (`expand=status&expand=info`).
std::vector<std::string> query_values(std::string_view query, std::string_view key) {
  std::vector<std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key)
      out.emplace_back(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

bool query_flag(std::string_view query, std::string_view key) {
  const auto v = query_values(query, key);
  return !v.empty() && (v.back() == "true" || v.back() == "TRUE" || v.back() == "True");
}

// Connect 4.1 names the plugin's version in every state (null while restarting).
void append_state(std::string& out, std::string_view state, std::string_view worker_id,
                  std::string_view trace, std::string_view version) {
  out += "\"state\":";
  append_json_string(out, state);
  out += ",\"worker_id\":";
  append_json_string(out, worker_id);
  if (!trace.empty()) {
    out += ",\"trace\":";
    append_json_string(out, trace);
  }
  out += ",\"version\":";
  append_json_string(out, version);
}

void append_task_state(std::string& out, const connect_task& t, std::string_view version) {
  out += "{\"id\":" + std::to_string(t.id) + ',';
  append_state(out, t.state, t.worker_id, t.trace, version);
  out += '}';
}

// ConnectorStateInfo.
std::string status_json(const connect_view& v) {
  std::string out = "{\"name\":";
  append_json_string(out, v.name);
  out += ",\"connector\":{";
  append_state(out, v.state, v.worker_id, v.trace, v.version);
  out += "},\"tasks\":[";
  for (size_t i = 0; i < v.tasks.size(); ++i) {
    if (i > 0) out += ',';
    append_task_state(out, v.tasks[i], v.version);
  }
  out += "],\"type\":\"sink\"}";
  return out;
}

void append_config(std::string& out, const connect_view& v) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : v.config) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, key);
    out += ':';
    append_json_string(out, value);
  }
  out += '}';
}

void append_task_id(std::string& out, const connect_view& v, int id) {
  out += "{\"connector\":";
  append_json_string(out, v.name);
  out += ",\"task\":" + std::to_string(id) + '}';
}

// ConnectorInfo.
std::string info_json(const connect_view& v) {
  std::string out = "{\"name\":";
  append_json_string(out, v.name);
  out += ",\"config\":";
  append_config(out, v);
  out += ",\"tasks\":[";
  for (size_t i = 0; i < v.tasks.size(); ++i) {
    if (i > 0) out += ',';
    append_task_id(out, v, v.tasks[i].id);
  }
  out += "],\"type\":\"sink\"}";
  return out;
}

std::optional<int> task_id(std::string_view text) {
  int id = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id < 0) return std::nullopt;
  return id;
}

const connect_task* find_task(const connect_view& v, int id) {
  for (const connect_task& t : v.tasks)
    if (t.id == id) return &t;
  return nullptr;
}

// KIP-875's request body: {"offsets": [{"partition": {"kafka_topic", "kafka_partition"},
// "offset": {"kafka_offset"} | null}]}; an error message when it is not that.
std::variant<std::vector<connect_offset>, std::string> parse_offsets(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS)
    return std::string("the request body is not JSON");
  simdjson::dom::array list;
  if (root["offsets"].get_array().get(list) != simdjson::SUCCESS)
    return std::string("the request body must hold an \"offsets\" array");
  std::vector<connect_offset> out;
  for (simdjson::dom::element e : list) {
    connect_offset o;
    std::string_view topic;
    int64_t partition = -1;
    if (e["partition"]["kafka_topic"].get_string().get(topic) != simdjson::SUCCESS ||
        e["partition"]["kafka_partition"].get_int64().get(partition) != simdjson::SUCCESS ||
        partition < 0 || partition > INT32_MAX) {
      return std::string(
          "each offset needs a \"partition\" with \"kafka_topic\" (a string) and "
          "\"kafka_partition\" (an integer ≥ 0)");
    }
    o.topic = topic;
    o.partition = static_cast<int32_t>(partition);
    simdjson::dom::element offset;
    if (e["offset"].get(offset) != simdjson::SUCCESS)
      return std::string("each offset needs an \"offset\": {\"kafka_offset\": N} or null");
    if (!offset.is_null()) {
      int64_t next = -1;
      if (offset["kafka_offset"].get_int64().get(next) != simdjson::SUCCESS || next < 0)
        return std::string("\"kafka_offset\" must be an integer ≥ 0");
      o.offset = next;
    }
    out.push_back(std::move(o));
  }
  if (out.empty()) return std::string("the \"offsets\" array is empty");
  std::vector<std::pair<std::string_view, int32_t>> named;
  for (const connect_offset& o : out)
    named.emplace_back(o.topic, o.partition);
  std::sort(named.begin(), named.end());
  if (std::adjacent_find(named.begin(), named.end()) != named.end())
    return std::string("a partition is named twice in \"offsets\"");
  return out;
}

}  // namespace

bool connect_api::serves(std::string_view path) {
  return path == "/" || path == "/connectors" || path.starts_with("/connectors/") ||
         path == "/connector-plugins" || path.starts_with("/connector-plugins/");
}

connect_response connect_api::handle(const connect_request& r) const {
  const std::string_view path =
      r.path.size() > 1 && r.path.back() == '/' ? r.path.substr(0, r.path.size() - 1) : r.path;
  if (path == "/") {
    if (r.method != "GET") return method_not_allowed("GET");
    const connect_view v = _backend.view();
    std::string out = "{\"version\":";
    append_json_string(out, v.version);
    out += ",\"commit\":";
    append_json_string(out, v.commit);
    out += ",\"kafka_cluster_id\":";
    append_json_string(out, v.kafka_cluster_id);
    out += '}';
    return {200, std::move(out)};
  }
  if (path == "/connector-plugins") {
    if (r.method != "GET") return method_not_allowed("GET");
    std::string out = "[{\"class\":";
    append_json_string(out, k_plugin_class);
    out += ",\"type\":\"sink\",\"version\":";
    append_json_string(out, _backend.view().version);
    out += "}]";
    return {200, std::move(out)};
  }
  if (path.starts_with("/connector-plugins/")) {
    return error(404,
                 "sluice has no plugin configuration to validate: its configuration is a "
                 "YAML file (`sluice check -c FILE` validates it)");
  }
  if (path == "/connectors") {
    if (r.method == "POST") {
      return error(409,
                   "sluice runs one connector, configured by its YAML file: edit that file "
                   "and restart (POST /connectors/" +
                       _backend.view().name + "/restart)");
    }
    if (r.method != "GET") return method_not_allowed("GET, POST");
    const connect_view v = _backend.view();
    const auto expand = query_values(r.query, "expand");
    if (expand.empty()) {
      std::string out = "[";
      append_json_string(out, v.name);
      out += ']';
      return {200, std::move(out)};
    }
    std::string out = "{";
    append_json_string(out, v.name);
    out += ":{";
    bool first = true;
    for (const std::string& e : expand) {
      if (e != "status" && e != "info") continue;  // Connect ignores unknown expansions
      if (!first) out += ',';
      first = false;
      append_json_string(out, e);
      out += ':';
      out += e == "status" ? status_json(v) : info_json(v);
    }
    out += "}}";
    return {200, std::move(out)};
  }
  // /connectors/{name}[/rest]
  std::string_view rest = path.substr(std::string_view("/connectors/").size());
  const size_t slash = rest.find('/');
  const std::string name(rest.substr(0, slash));
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  return connector(r, name, rest);
}

connect_response connect_api::connector(const connect_request& r, const std::string& name,
                                        std::string_view rest) const {
  const connect_view v = _backend.view();
  const std::string_view m = r.method;
  if (name != v.name) {
    // Connect's messages, which differ by endpoint.
    if (rest == "/status") return error(404, "No status found for connector " + name);
    if (rest == "/pause" || rest == "/resume" || rest == "/stop")
      return error(404, "Unknown connector " + name);
    if (rest == "/restart") return error(404, "Unknown connector: " + name);
    return error(404, "Connector " + name + " not found");
  }
  const auto config_is_a_file = [&] {
    return error(409, "the configuration of " + v.name +
                          " is a YAML file: edit it and restart (POST /connectors/" + v.name +
                          "/restart)");
  };
  if (rest.empty()) {
    if (m == "DELETE") return config_is_a_file();
    if (m != "GET") return method_not_allowed("GET, DELETE");
    return {200, info_json(v)};
  }
  if (rest == "/config") {
    if (m == "PUT" || m == "PATCH") return config_is_a_file();
    if (m != "GET") return method_not_allowed("GET, PUT, PATCH");
    std::string out;
    append_config(out, v);
    return {200, std::move(out)};
  }
  if (rest == "/status") {
    if (m != "GET") return method_not_allowed("GET");
    return {200, status_json(v)};
  }
  if (rest == "/tasks") {
    if (m != "GET") return method_not_allowed("GET");
    std::string out = "[";
    for (size_t i = 0; i < v.tasks.size(); ++i) {
      if (i > 0) out += ',';
      out += "{\"id\":";
      append_task_id(out, v, v.tasks[i].id);
      out += ",\"config\":";
      append_config(out, v);
      // Connect adds the task's class and id to each task's configuration.
      out.pop_back();
      out += v.config.empty() ? "" : ",";
      out += "\"task.class\":";
      append_json_string(out, k_plugin_class);
      out += ",\"task.id\":\"" + std::to_string(v.tasks[i].id) + "\"}}";
    }
    out += ']';
    return {200, std::move(out)};
  }
  if (rest == "/topics") {
    if (m != "GET") return method_not_allowed("GET");
    std::string out = "{";
    append_json_string(out, v.name);
    out += ":{\"topics\":[";
    for (size_t i = 0; i < v.topics.size(); ++i) {
      if (i > 0) out += ',';
      append_json_string(out, v.topics[i]);
    }
    out += "]}}";
    return {200, std::move(out)};
  }
  if (rest == "/topics/reset") {
    if (m != "PUT") return method_not_allowed("PUT");
    // sluice's active topics are those its members are assigned now: nothing is remembered
    // to reset.
    return {202, ""};
  }
  if (rest == "/pause" || rest == "/resume" || rest == "/stop") {
    if (m != "PUT") return method_not_allowed("PUT");
    _backend.set_target(rest == "/pause"    ? sink::target_state::paused
                        : rest == "/resume" ? sink::target_state::running
                                            : sink::target_state::stopped);
    return {rest == "/stop" ? 204 : 202, ""};  // Connect 4.1's codes
  }
  if (rest == "/restart") {
    if (m != "POST") return method_not_allowed("POST");
    const bool include_tasks = query_flag(r.query, "includeTasks");
    const bool only_failed = query_flag(r.query, "onlyFailed");
    // Every member is both the connector and a task: includeTasks changes nothing here.
    _backend.restart(only_failed);
    if (!include_tasks && !only_failed) return {204, ""};
    connect_view after = _backend.view();
    for (connect_task& t : after.tasks) {
      if (!only_failed || t.state == "FAILED") t.state = "RESTARTING";
    }
    if (!only_failed || after.state == "FAILED") after.state = "RESTARTING";
    return {202, status_json(after)};
  }
  if (rest == "/offsets") return offsets(r);
  if (rest.starts_with("/tasks/")) {
    std::string_view t = rest.substr(std::string_view("/tasks/").size());
    const size_t cut = t.find('/');
    const std::string_view what = cut == std::string_view::npos ? "" : t.substr(cut);
    const auto id = task_id(t.substr(0, cut));
    if (!id) return error(404, "HTTP 404 Not Found");
    if (what == "/status") {
      if (m != "GET") return method_not_allowed("GET");
      const connect_task* task = find_task(v, *id);
      if (task == nullptr)
        return error(404, "No status found for task " + v.name + "-" + std::to_string(*id));
      std::string out;
      append_task_state(out, *task, v.version);
      return {200, std::move(out)};
    }
    if (what == "/restart") {
      if (m != "POST") return method_not_allowed("POST");
      if (!_backend.restart_task(*id))
        return error(404, "Unknown task: " + v.name + "-" + std::to_string(*id));
      return {204, ""};
    }
  }
  return error(404, "HTTP 404 Not Found");
}

connect_response connect_api::offsets(const connect_request& r) const {
  if (r.method == "GET") {
    auto [list, answer] = _backend.offsets();
    if (answer.status != 200) return error(answer.status, answer.message);
    std::string out = "{\"offsets\":[";
    bool first = true;
    for (const connect_offset& o : list) {
      if (!o.offset) continue;
      if (!first) out += ',';
      first = false;
      out += "{\"partition\":{\"kafka_topic\":";
      append_json_string(out, o.topic);
      out += ",\"kafka_partition\":" + std::to_string(o.partition) +
             "},\"offset\":{\"kafka_offset\":" + std::to_string(*o.offset) + "}}";
    }
    out += "]}";
    return {200, std::move(out)};
  }
  if (r.method == "PATCH") {
    auto parsed = parse_offsets(r.body);
    if (const auto* why = std::get_if<std::string>(&parsed)) return error(400, *why);
    const connect_answer a = _backend.alter_offsets(std::get<std::vector<connect_offset>>(parsed));
    return a.status == 200 ? message(200, a.message) : error(a.status, a.message);
  }
  if (r.method == "DELETE") {
    const connect_answer a = _backend.reset_offsets();
    return a.status == 200 ? message(200, a.message) : error(a.status, a.message);
  }
  return method_not_allowed("GET, PATCH, DELETE");
}

}  // namespace sluice
