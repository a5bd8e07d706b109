#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// Reads an environment variable; nullopt when it is not set. Injected so that tests (and
// `sluice check` on another machine's file) need not touch the process environment.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;

// getenv().
env_lookup process_environment();

// The names the table router fills in: ${topic}, ${database}, ${schema}, ${table}. They are
// reserved: never read from the environment.
bool is_routing_placeholder(std::string_view name);

struct substitution {
  std::string text;
  std::vector<std::string> errors;  // one per bad reference; text is unusable if any
  // What the references brought in, for redaction (config::secrets): the content of each
  // ${file:} file, and the value of each environment variable read (not its fallback).
  std::vector<std::string> from_files;
  std::vector<std::string> from_env;
};

// Substitutes environment and file references in one scalar value of the configuration file:
//   ${NAME}            the variable's value; an error if it is not set
//   ${NAME:-fallback}  the variable's value, or fallback when it is unset or empty
//   ${file:/PATH}      the file's content less one trailing newline (read_secret_file); an
//                      error if it cannot be read. PATH is absolute and runs up to the "}".
//   $${                a literal "${"
// NAME is [A-Za-z_][A-Za-z0-9_]*. A routing placeholder is kept as written where
// `routing_allowed` (table.name.format, tables.<source>.target) and is an error elsewhere.
// Substituted text is not scanned again. Error messages never hold what a reference read.
substitution substitute_env(std::string_view text, const env_lookup& env, bool routing_allowed);

// Bounds a secret file: anything larger is not a password, key or address (/dev/zero, a log).
inline constexpr std::size_t max_secret_file_bytes = 64 * 1024;

// The content of a secret file (a Docker or Kubernetes secret, a password file) with exactly
// one trailing "\n" or "\r\n" removed, as `echo secret > file` leaves one. On failure, nullopt
// and `error` says why, naming the path and never the content.
std::optional<std::string> read_secret_file(const std::string& path, std::string& error);

}  // namespace sluice
