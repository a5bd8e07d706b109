// sluice: a CDC sink from Kafka to PostgreSQL. See `sluice --help` and README.md.
//
// Exit codes: 0 success (or drained after SIGTERM/SIGINT); 1 the connector failed (FAILED
// state, or a fatal error at run time; `replay`: stopped before the end of its input); 2
// usage or configuration error; 3 a service could not be reached (`check`).

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "connector/cli/commands.h"

#ifdef SLUICE_JEMALLOC
// jemalloc's defaults keep freed pages for 10 s: returning them within a second keeps the
// resident set near what is in use (batches come and go several times a second).
extern "C" {
// NOLINTNEXTLINE: jemalloc reads this symbol by name at startup.
const char* malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0";
}
#endif

namespace {

const char* const usage = R"(sluice — replicate CDC streams from Kafka into PostgreSQL

Usage:
  sluice run -c|--config FILE        consume, merge and apply until stopped (SIGTERM drains)
  sluice check -c FILE               validate the config, reach Kafka and PostgreSQL, print the plan
  sluice decode [--format F] [-c FILE] [--kafka-json]
                                     decode messages from stdin into JSON lines: one per change
                                     {"table":..,"op":..,"key":..,"csn":..,"image":..,..},
                                     per catalog update {"catalog":{"table":..,"columns":..}},
                                     per DDL record {"ddl":{"table":..,"statement":..}};
                                     refused messages on stderr as topic[partition]@offset: reason
                                     --kafka-json: each line is a `kcat -C -J` record; its topic,
                                     partition, offset, key and headers make the message
  sluice replay -c FILE --file F [--file F2…] [--no-progress]
                                     apply `kcat -C -J` records from F (- for stdin), or
                                     Datastream Avro files (F a .avro file or a folder of
                                     them, read in path order; as the first topic) through
                                     decode, merge and apply, without Kafka and without touching
                                     sluice.offsets; batches of batch.size; undecodable messages
                                     go to the dead letters (errors.tolerance: none stops there);
                                     a progress bar on stderr (terminals), a summary on stdout
  sluice status -c FILE              per partition: the offset committed in PostgreSQL, the high
                                     watermark in Kafka, the lag and the owner epoch
  sluice config-reference            print every configuration key (Markdown)
  sluice --help | --version

Exit codes: 0 ok; 1 connector failed (replay: stopped before the end of its input);
2 usage or configuration error; 3 service unreachable (check, status).
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    std::cout << "sluice " << sluice::version() << "\n";
    return 0;
  }
  const std::string_view command = args[0];
  args.erase(args.begin());
  if (command == "run") return sluice::run_command(args);
  if (command == "check") return sluice::check_command(args);
  if (command == "decode") return sluice::decode_command(args);
  if (command == "replay") return sluice::replay_command(args);
  if (command == "status") return sluice::status_command(args);
  if (command == "config-reference") return sluice::config_reference_command(args);
  std::cerr << "sluice: unknown command '" << command << "'\n\n" << usage;
  return 2;
}
