#pragma once

#include <sys/types.h>

namespace sluice::testing {

// CPU time and memory of processes, read from /proc, for the benchmarks: a figure per million
// events needs the CPU seconds of sluice, and of the broker and PostgreSQL beside it.

// utime + stime of a process (all its threads), in seconds; with reaped_children, plus what
// its children that it has waited for used. -1 when the process is gone.
double process_cpu_seconds(pid_t pid, bool reaped_children = false);

// A process, the children it reaped, and its live children: a postmaster and its backends.
double process_tree_cpu_seconds(pid_t parent);

// VmHWM (peak resident set) in MiB; -1 when the process is gone.
double process_peak_rss_mb(pid_t pid);

// CPU seconds of the whole machine (/proc/stat, every core): busy and busy + idle.
struct machine_cpu {
  double busy = 0;
  double total = 0;

  static machine_cpu now();
};

// CPU seconds of the services integration/services/*.sh started (pids from $SLUICE_RUN_DIR);
// -1 for one that is not running.
struct service_cpu {
  double kafka = -1;
  double postgres = -1;
  double mariadb = -1;  // mariadbd: one process, its threads

  static service_cpu now();
};

}  // namespace sluice::testing
