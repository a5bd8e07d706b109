// sluice: a CDC sink from Kafka to PostgreSQL. See `sluice --help`, README.md and
// docs/operations.md. The commands and exit codes: cli/command_line.cc.

#include "connector/cli/command_line.h"

#ifdef SLUICE_JEMALLOC
// jemalloc's defaults keep freed pages for 10 s: returning them within a second keeps the
// resident set near what is in use (batches come and go several times a second).
extern "C" {
// NOLINTNEXTLINE: jemalloc reads this symbol by name at startup.
const char* malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0";
}
#endif

int main(int argc, char** argv) {
  return sluice::run_command_line(argc, argv);
}
