#include "integration/support/process_stats.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "integration/support/services.h"

namespace sluice::testing {
namespace {

// The fields of /proc/<pid>/stat after the command name: [0] is field 3 (state), [1] the
// ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
std::vector<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');
  std::vector<std::string> out;
  if (close == std::string::npos || close + 2 > line.size()) return out;
  std::istringstream rest(line.substr(close + 2));
  for (std::string f; rest >> f;)
    out.push_back(f);
  return out;
}

double ticks_per_second() {
  return static_cast<double>(::sysconf(_SC_CLK_TCK));
}

pid_t service_pid(const std::string& file) {
  std::ifstream in(run_dir() + "/" + file);
  long pid = -1;
  in >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace

double process_cpu_seconds(pid_t pid, bool reaped_children) {
  const auto f = stat_fields(pid);
  if (f.size() < 15) return -1;
  double ticks = std::stod(f[11]) + std::stod(f[12]);
  if (reaped_children) ticks += std::stod(f[13]) + std::stod(f[14]);
  return ticks / ticks_per_second();
}

double process_tree_cpu_seconds(pid_t parent) {
  double total = process_cpu_seconds(parent, true);
  if (total < 0) return -1;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    const auto f = stat_fields(pid);
    if (f.size() >= 15 && std::stol(f[1]) == parent) {
      total += (std::stod(f[11]) + std::stod(f[12])) / ticks_per_second();
    }
  }
  return total;
}

double process_peak_rss_mb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}

machine_cpu machine_cpu::now() {
  // cpu  user nice system idle iowait irq softirq steal ...
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  machine_cpu m;
  m.busy = (user + nice + system + irq + softirq + steal) / ticks_per_second();
  m.total = m.busy + (idle + iowait) / ticks_per_second();
  return m;
}

service_cpu service_cpu::now() {
  service_cpu s;
  if (const pid_t k = service_pid("kafka.pid"); k > 0) s.kafka = process_cpu_seconds(k);
  if (const pid_t p = service_pid("postgres.pid"); p > 0) {
    s.postgres = process_tree_cpu_seconds(p);
  }
  if (const pid_t m = service_pid("mariadb.pid"); m > 0) s.mariadb = process_cpu_seconds(m);
  return s;
}

}  // namespace sluice::testing
