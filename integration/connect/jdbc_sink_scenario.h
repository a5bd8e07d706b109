#pragma once

// Debezium's JDBC sink (the `connect` fixture's worker) applying the committed Debezium
// fixtures: tests/fixtures/debezium/default_<table>.jsonl, real output of Debezium's PostgreSQL
// source through JsonConverter (schemas.enable=true), each table's messages on a topic
// <prefix>.public.<table> (one partition). The connector's config is
// integration/connect/debezium-jdbc-sink.json with its @...@ placeholders filled in: default
// naming (collection.name.format `${topic}`), upsert, record_key, deletes, basic schema
// evolution, uuid_pk's `body` excluded, and a RegexRouter renaming <prefix>.public.<table> to
// <prefix>.replica.<table>, so each table lands in public.<prefix>_replica_<table>.
//
// apply_part() leaves the connector STOPPED part-way through the topics, its consumer group
// `connect-<name>` empty with its offsets at the part: where a switch to sluice starts (its
// config imported from config_file(), its takeover from group()).
//
// Another config of the same shape (its placeholders, its topics, a router to
// <prefix>.replica.<table>) can be given by its file name in integration/connect/, e.g.
// debezium-jdbc-sink-chain.json (a chain of transforms in front of the sink).
//
// Lifecycle: the constructor picks unique names and creates the topics; nothing is created on
// the worker until start(). Threading: one.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "integration/support/services.h"

namespace sluice::testing {

class jdbc_sink_scenario {
 public:
  explicit jdbc_sink_scenario(std::string config_name = "debezium-jdbc-sink.json");

  // The fixture tables, and how many messages each one's topic holds in all.
  static const std::vector<std::string>& tables();
  static std::map<std::string, int64_t> fixture_sizes();

  const std::string& name() const { return _name; }
  const std::string& prefix() const { return _prefix; }
  std::string group() const { return "connect-" + _name; }
  std::string topic(const std::string& table) const { return _prefix + ".public." + table; }
  // Where the connector writes the table (schema public): the routed topic, dots as `_`.
  std::string target_table(const std::string& table) const { return _prefix + "_replica_" + table; }

  // The connector's {"name", "config"} JSON, POSTed by start(); config_file() writes it to the
  // run dir and returns its path (for `sluice config import`).
  std::string config_json() const;
  std::string config_file() const;

  // Produces the fixture messages [from, to) of table's topic, in order.
  void produce(const std::string& table, size_t from, size_t to) const;

  // Creates the connector and waits until its task runs.
  void start() const;
  // Waits until the connector's group committed, for each table given, that offset (the number
  // of its messages applied; 0 also when it committed none); false at the timeout, and fails
  // the test at once when a task FAILED.
  bool wait_committed(const std::map<std::string, int64_t>& offsets,
                      std::chrono::seconds timeout = std::chrono::seconds(90)) const;
  // The group's committed offset per table (-1: none).
  std::map<std::string, int64_t> committed() const;

  // Produces the first part.at(table) messages of each table named (a table not named gets
  // none, and then all of its messages), lets the connector apply them
  // (its committed offsets reach the part), stops it (PUT /stop), then produces the rest of
  // each fixture: the topics end past what the connector applied.
  void apply_part(const std::map<std::string, int64_t>& part) const;

 private:
  std::string _config_name;  // a file of integration/connect/
  std::string _name;
  std::string _prefix;
};

}  // namespace sluice::testing
