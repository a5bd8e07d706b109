#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

// What the command line (cli/command_line.cc, CLI11) parsed for each command. Each command
// returns the process exit code (the table in cli/command_line.cc and docs/operations.md).

int run_command(const std::string& config_path);    // cli/run_command.cc
int check_command(const std::string& config_path);  // cli/check_command.cc
struct status_options {
  std::string config_path;
  bool json = false;  // one JSON object instead of the tables
};
int status_command(const status_options& options);  // cli/status_command.cc
int config_reference_command();                     // cli/config_reference_command.cc
struct config_import_options {
  std::string file;    // the connector's JSON or .properties
  std::string output;  // empty: stdout
};
int config_import_command(const config_import_options& options);  // cli/config_import_command.cc

struct decode_options {
  std::optional<std::string> config_path;
  std::optional<std::string> format;  // one of message_format_names
  bool kafka_json = false;
};
int decode_command(const decode_options& options);  // cli/decode_command.cc

struct replay_options {
  std::string config_path;
  std::vector<std::string> files;  // at least one
  bool progress = true;
};
int replay_command(const replay_options& options);  // cli/replay_command.cc

struct offsets_options {
  enum class action_kind { show, reset };
  action_kind action = action_kind::show;
  std::string config_path;
  std::vector<std::string> topics;  // empty: every topic of the connector
  std::vector<int32_t> partitions;  // empty: every partition of those topics
  bool json = false;                // show
  // reset: exactly one of these
  bool to_earliest = false;
  bool to_latest = false;
  std::optional<int64_t> to_offset;
  std::optional<std::string> to_datetime;
  bool dry_run = false;
};
int offsets_command(const offsets_options& options);  // cli/offsets_command.cc

struct dead_letters_options {
  enum class action_kind { list, show, replay, purge };
  action_kind action = action_kind::list;
  std::string config_path;
  // The filter (list, replay, purge): each one set narrows.
  std::optional<std::string> table;   // target "schema.table" or a bare table name
  std::optional<std::string> kind;    // decode, routing, rejected, ddl_failed, keyless, chunk
  std::optional<std::string> reason;  // text the reason holds
  std::optional<std::string> topic;
  std::optional<std::string> since;  // created at or after (ISO 8601)
  std::optional<std::string> until;  // created before
  std::vector<int64_t> ids;          // show: the one; replay, purge: only these
  std::optional<int64_t> up_to_id;   // list, replay, purge: ids at most this
  size_t limit = 100;                // list
  size_t replay_limit = 0;           // replay: at most this many letters taken (0: all)
  bool dry_run = false;              // replay: say what would be taken, apply nothing
  bool json = false;                 // list, show
  bool yes = false;                  // purge
};
int dead_letters_command(const dead_letters_options& options);  // cli/dead_letters_command.cc

}  // namespace sluice
