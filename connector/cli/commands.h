#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

// What the command line (cli/command_line.cc, CLI11) parsed for each command. Each command
// returns the process exit code (the table in cli/command_line.cc and docs/operations.md).

int run_command(const std::string& config_path);
int check_command(const std::string& config_path);
int status_command(const std::string& config_path);  // cli/status_command.cc
int config_reference_command();

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

}  // namespace sluice
