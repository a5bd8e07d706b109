#include "integration/connect/jdbc_sink_scenario.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <utility>

#include "integration/connect/connect_rest.h"
#include "integration/connect/consumer_groups.h"
#include "integration/support/fixture_files.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

// default_<table>.jsonl: {"key":K,"value":V} per message, the key and value as JsonConverter
// wrote them. A key holds no field named "value", so the first ,"value": ends it.
std::vector<kafka_record> fixture_records(const std::string& table) {
  std::vector<kafka_record> out;
  for (const std::string& line : lines_of(read_fixture("debezium/default_" + table + ".jsonl"))) {
    const std::string head = "{\"key\":";
    const size_t split = line.find(",\"value\":");
    REQUIRE((line.starts_with(head) && split != std::string::npos && line.ends_with("}")));
    kafka_record r;
    r.key = line.substr(head.size(), split - head.size());
    const std::string value = line.substr(split + 9, line.size() - 1 - (split + 9));
    if (value != "null") r.value = value;  // else a tombstone
    r.partition = 0;
    out.push_back(r);
  }
  return out;
}

// postgresql://USER@HOST:PORT/DB?... (postgres.sh's DSN) ->
// {jdbc:postgresql://HOST:PORT/DB?currentSchema=public, USER}. currentSchema: the sink creates
// unqualified tables in the first schema of its search_path, "$user", public; the role is
// `sluice`, so once any sluice run in the suite has made its state schema `sluice`, the
// connector's tables would land there instead of public (the tests then fail by the order they
// run in). `sluice config import` maps currentSchema=public to table.name.format public.${topic}.
std::pair<std::string, std::string> jdbc_url_and_user() {
  static const std::regex dsn(R"re(postgresql://([^@:/]+)@([^/?]+)/([^?]+).*)re");
  const std::string text = postgres_dsn();
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_match(text, m, dsn), text);
  return {"jdbc:postgresql://" + m[2].str() + "/" + m[3].str() + "?currentSchema=public",
          m[1].str()};
}

// table=offset, ... for failure messages.
std::string text_of(const std::map<std::string, int64_t>& offsets) {
  std::string out;
  for (const auto& [table, offset] : offsets)
    out += (out.empty() ? "" : ", ") + table + "=" + std::to_string(offset);
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

jdbc_sink_scenario::jdbc_sink_scenario(std::string config_name)
    : _config_name(std::move(config_name)),
      _name(unique_name("dbz_sink")),
      _prefix(unique_name("cx")) {
  for (const std::string& table : tables())
    create_topic(topic(table), 1);
}

const std::vector<std::string>& jdbc_sink_scenario::tables() {
  static const std::vector<std::string> names{"all_types", "uuid_pk", "bytea_pk"};
  return names;
}

std::map<std::string, int64_t> jdbc_sink_scenario::fixture_sizes() {
  std::map<std::string, int64_t> out;
  for (const std::string& table : tables())
    out[table] = static_cast<int64_t>(fixture_records(table).size());
  return out;
}

std::string jdbc_sink_scenario::config_json() const {
  const char* source = std::getenv("SLUICE_SOURCE_DIR");
  REQUIRE_MESSAGE(source, "SLUICE_SOURCE_DIR is not set (run through ctest)");
  std::string text = read_file(std::string(source) + "/integration/connect/" + _config_name);
  const auto [url, user] = jdbc_url_and_user();
  text = replaced(text, "@NAME@", _name);
  text = replaced(text, "@PREFIX@", _prefix);
  text = replaced(text, "@JDBC_URL@", url);
  text = replaced(text, "@PG_USER@", user);
  REQUIRE_MESSAGE(text.find('@') == std::string::npos, "a placeholder is left: " << text);
  return text;
}

std::string jdbc_sink_scenario::config_file() const {
  return write_run_file(_name + ".json", config_json());
}

void jdbc_sink_scenario::produce(const std::string& table, size_t from, size_t to) const {
  const std::vector<kafka_record> all = fixture_records(table);
  REQUIRE((from <= to && to <= all.size()));
  if (from < to) {
    sluice::testing::produce(topic(table),
                             std::vector<kafka_record>(all.begin() + static_cast<long>(from),
                                                       all.begin() + static_cast<long>(to)));
  }
}

void jdbc_sink_scenario::start() const {
  create_connector(config_json());
  wait_running(_name);
}

std::map<std::string, int64_t> jdbc_sink_scenario::committed() const {
  std::map<std::string, int64_t> out;
  for (const std::string& table : tables())
    out[table] = committed_offset(group(), topic(table), 0);
  return out;
}

bool jdbc_sink_scenario::wait_committed(const std::map<std::string, int64_t>& offsets,
                                        std::chrono::seconds timeout) const {
  return wait_until(
      [&] {
        // A failed task never commits: stop waiting at once, the status says why.
        const std::vector<std::string> states = connector_states(_name);
        for (const std::string& s : states)
          REQUIRE_MESSAGE(s != "FAILED",
                          connect_rest("GET", "/connectors/" + _name + "/status").body);
        try {
          for (const auto& [table, offset] : offsets) {
            // Nothing committed (-1) is where a table with no message applied stands.
            if (std::max<int64_t>(committed_offset(group(), topic(table), 0), 0) != offset)
              return false;
          }
          return true;
        } catch (const std::runtime_error&) {
          return false;  // the group's coordinator still loading: ask again
        }
      },
      timeout);
}

void jdbc_sink_scenario::apply_part(const std::map<std::string, int64_t>& part) const {
  std::map<std::string, int64_t> first;  // every table, 0 for those not named
  for (const std::string& table : tables())
    first[table] = part.contains(table) ? part.at(table) : 0;
  for (const auto& [table, count] : first)
    produce(table, 0, static_cast<size_t>(count));
  start();
  REQUIRE_MESSAGE(wait_committed(first),
                  "committed " << text_of(committed()) << ", expected " << text_of(first));
  stop_connector(_name);
  const std::map<std::string, int64_t> sizes = fixture_sizes();
  for (const auto& [table, count] : first)
    produce(table, static_cast<size_t>(count), static_cast<size_t>(sizes.at(table)));
}

}  // namespace sluice::testing
