#pragma once

#include <sys/types.h>

#include <cstdint>

#include <string>
#include <vector>

namespace sluice::testing {

// A `sluice run` child process with its own config file and log, for end-to-end tests.
// The destructor kills it (SIGKILL) if the test did not stop it. Once reaped, its log is
// scanned for a sanitizer report (child_reports.h), as is run_sluice's stderr.
class sluice_process {
 public:
  // Writes config_yaml to a file in the run dir and starts `sluice run -c <file>`.
  explicit sluice_process(const std::string& config_yaml, const std::string& name = "sluice");
  ~sluice_process();
  sluice_process(const sluice_process&) = delete;
  sluice_process& operator=(const sluice_process&) = delete;

  // SIGTERM, then waits; returns the exit code (or 128+signal).
  int stop(int timeout_seconds = 30);
  // SIGKILL, then waits.
  void kill9();
  bool running();
  pid_t pid() const { return _pid; }
  std::string log() const;  // what the process wrote to stderr/stdout so far

 private:
  int wait_for_exit(int timeout_seconds);
  std::string _log_path;
  pid_t _pid = -1;
  int _exit_code = -1;
};

// What a sluice command run to completion printed, and its exit code.
struct command_result {
  int exit_code = -1;      // or 128+signal
  std::string out;         // stdout
  std::string err;         // stderr
  double peak_rss_mb = 0;  // the process's peak resident set (wait4's ru_maxrss)
  double seconds = 0;      // wall time from start to exit
};

// Runs `sluice <args...>` to completion (stdin from stdin_text, stdout and stderr captured
// apart) and returns what it printed; kills it and throws when it runs longer than
// timeout_seconds.
command_result run_sluice(const std::vector<std::string>& args, const std::string& stdin_text = "",
                          int timeout_seconds = 120);

// Whether a command's output holds `part`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Writes text to a new file in the run dir named after prefix; returns its path.
std::string write_run_file(const std::string& prefix, const std::string& text);

// A minimal config for a test: connector `name` reading `topic` from the first offset;
// `extra` is appended YAML.
std::string basic_config(const std::string& name, const std::string& topic,
                         const std::string& format = "datastream", const std::string& extra = "",
                         int batch_size = 500);

// basic_config() with another target's section ("mariadb:\n  dsn: ...\n") instead of postgres.
std::string config_for_target(const std::string& target_section, const std::string& name,
                              const std::string& topic, const std::string& format = "datastream",
                              const std::string& extra = "", int batch_size = 500);

// A basic_config() with its metrics.listen on 127.0.0.1:port (an HTTP surface to query).
std::string with_metrics_listen(std::string config, uint16_t port);

}  // namespace sluice::testing
