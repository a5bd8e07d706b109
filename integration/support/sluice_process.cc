#include "integration/support/sluice_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "integration/support/child_reports.h"
#include "integration/support/services.h"

namespace sluice::testing {

sluice_process::sluice_process(const std::string& config_yaml, const std::string& name) {
  const std::string base = run_dir() + "/" + unique_name(name);
  const std::string config_path = base + ".yaml";
  _log_path = base + ".log";
  {
    std::ofstream out(config_path);
    out << config_yaml;
  }
  const std::string binary = sluice_binary();
  _pid = ::fork();
  if (_pid < 0) throw std::runtime_error("fork failed");
  if (_pid == 0) {
    const int fd = ::open(_log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execl(binary.c_str(), binary.c_str(), "run", "-c", config_path.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
}

sluice_process::~sluice_process() {
  if (_pid > 0 && _exit_code < 0) kill9();
}

int sluice_process::wait_for_exit(int timeout_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(_pid, &status, WNOHANG);
    if (r == _pid) {
      _exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      check_child_output("sluice run (pid " + std::to_string(_pid) + ", log " + _log_path + ")",
                         log());
      return _exit_code;
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int sluice_process::stop(int timeout_seconds) {
  if (_exit_code >= 0) return _exit_code;
  ::kill(_pid, SIGTERM);
  const int code = wait_for_exit(timeout_seconds);
  if (code < 0) {
    kill9();
    throw std::runtime_error("sluice did not stop within " + std::to_string(timeout_seconds) +
                             "s of SIGTERM; log:\n" + log());
  }
  return code;
}

void sluice_process::kill9() {
  if (_exit_code >= 0) return;
  ::kill(_pid, SIGKILL);
  wait_for_exit(30);
}

bool sluice_process::running() {
  if (_exit_code >= 0) return false;
  return wait_for_exit(0) < 0;
}

std::string sluice_process::log() const {
  std::ifstream in(_log_path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write_run_file(const std::string& prefix, const std::string& text) {
  const std::string path = run_dir() + "/" + unique_name(prefix);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
  return path;
}

command_result run_sluice(const std::vector<std::string>& args, const std::string& stdin_text,
                          int timeout_seconds) {
  // Files, not pipes: nothing can block on a full pipe while the other side waits.
  const std::string in_path = write_run_file("stdin", stdin_text);
  const std::string out_path = in_path + ".out";
  const std::string err_path = in_path + ".err";
  const std::string binary = sluice_binary();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int in = ::open(in_path.c_str(), O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  command_result r;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::seconds(timeout_seconds);
  for (;;) {
    int status = 0;
    struct rusage usage {};
    if (::wait4(pid, &status, WNOHANG, &usage) == pid) {
      r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      r.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      throw std::runtime_error("sluice did not finish within " + std::to_string(timeout_seconds) +
                               "s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  check_child_output(
      "sluice " + (args.empty() ? std::string() : args[0]) + " (stderr " + err_path + ")", r.err);
  return r;
}

std::string basic_config(const std::string& name, const std::string& topic,
                         const std::string& format, const std::string& extra, int batch_size) {
  return config_for_target("postgres:\n  dsn: \"" + postgres_dsn() + "\"\n", name, topic, format,
                           extra, batch_size);
}

std::string config_for_target(const std::string& target_section, const std::string& name,
                              const std::string& topic, const std::string& format,
                              const std::string& extra, int batch_size) {
  std::ostringstream y;
  y << "name: " << name << "\n"
    << "kafka:\n"
    << "  bootstrap.servers: " << kafka_bootstrap() << "\n"
    << "  group.id: " << name << "\n"
    << "  auto.offset.reset: earliest\n"
    << "  session.timeout.ms: 6000\n"
    << "  heartbeat.interval.ms: 500\n"
    << "topics: [" << topic << "]\n"
    << "format: " << format << "\n"
    << target_section << "batch.size: " << batch_size << "\n"
    << "batch.max.ms: 200\n"
    << "metrics:\n"
    << "  listen: \"\"\n"
    << extra;
  return y.str();
}

std::string with_metrics_listen(std::string config, uint16_t port) {
  const std::string off = "metrics:\n  listen: \"\"\n";
  config.replace(config.find(off), off.size(),
                 "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
  return config;
}

}  // namespace sluice::testing
