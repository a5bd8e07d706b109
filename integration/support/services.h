#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sluice::testing {

// The real services started by the CTest fixtures (integration/services/*.sh): their
// addresses are read from $SLUICE_RUN_DIR. A test fails at once when they are missing.
std::string run_dir();
std::string kafka_bootstrap();
std::string postgres_dsn();
std::string sluice_binary();  // $SLUICE_BINARY, set by CTest
// The Schema Registry's Confluent-compatible base URL (services/registry.sh: registry.url).
std::string registry_url();

// Runs a shell command and returns its standard output; throws when it fails (with what it
// printed).
std::string run_shell(const std::string& command);

// A topic name unique to this process and call, so tests never see each other's data.
std::string unique_name(const std::string& prefix);

// configs: topic-level settings, e.g. {{"max.message.bytes", "1048576"}}.
void create_topic(const std::string& topic, int partitions,
                  const std::map<std::string, std::string>& configs = {});

struct kafka_record {
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone
  int partition = -1;                // -1: by key hash
  int64_t timestamp_ms = 0;          // its CreateTime, ms since 1970; 0: now
};

// Produces with a real Kafka client (librdkafka, acks=all, idempotent) and waits for every
// delivery report; throws on any failure. properties: more librdkafka settings (e.g. a
// message.max.bytes above librdkafka's 1 MB default).
void produce(const std::string& topic, const std::vector<kafka_record>& records,
             const std::map<std::string, std::string>& properties = {});

// One message read back from a topic, with its headers (the last value of each name).
struct read_message {
  std::optional<std::string> key, value;
  std::map<std::string, std::string> headers;
};

// Moves the partition's log start to `before` (DeleteRecords): what retention would do to the
// offsets below it.
void delete_records(const std::string& topic, int partition, int64_t before);

// Every message of partition 0 of topic from the beginning, until want are read or 30 s pass.
std::vector<read_message> read_topic(const std::string& topic, size_t want);

using row = std::vector<std::optional<std::string>>;
// Runs a query with libpqxx and returns the rows as text (nullopt for NULL).
std::vector<row> query(const std::string& sql);
void execute(const std::string& sql);
// The first column of the first row as an integer (0 when there is none or it is NULL):
// SELECT count(*) … and the like.
int64_t count_of(const std::string& sql);

// Polls `done` every 100 ms until it returns true or `timeout` passes; returns its last answer.
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout);

}  // namespace sluice::testing
