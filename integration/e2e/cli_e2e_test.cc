// sluice's command line (issue 15): every command has --help (exit 0), an unknown flag or a
// stray argument is refused with exit 2 before anything runs, and --version names the commit
// and the librdkafka and libpq versions. No service is needed: a refused command line must
// never reach one.

#include <doctest/doctest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

// A valid configuration whose services do not exist: a command that ran would fail or hang,
// not exit 2 at once.
std::string unreachable_config() {
  return write_run_file("cli_unreachable",
                        "name: cli\n"
                        "kafka:\n  bootstrap.servers: 127.0.0.1:1\n"
                        "topics: [t]\n"
                        "postgres:\n  dsn: \"postgresql://x@127.0.0.1:1/db\"\n"
                        "metrics:\n  listen: \"\"\n");
}

const std::vector<std::vector<std::string>> commands = {{"run"},
                                                        {"check"},
                                                        {"decode"},
                                                        {"replay"},
                                                        {"status"},
                                                        {"offsets"},
                                                        {"offsets", "show"},
                                                        {"offsets", "reset"},
                                                        {"config-reference"},
                                                        {"dead-letters"},
                                                        {"dead-letters", "list"},
                                                        {"dead-letters", "show"},
                                                        {"dead-letters", "replay"},
                                                        {"dead-letters", "purge"}};

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

TEST_CASE("every command has --help, exit 0") {
  for (const std::vector<std::string>& command : commands) {
    INFO(joined(command));
    std::vector<std::string> args = command;
    args.push_back("--help");
    const command_result r = run_sluice(args, "", 30);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "Usage: sluice " + joined(command)));
    CHECK(contains(r.out, "Exit codes:"));
  }
  const command_result top = run_sluice({"--help"}, "", 30);
  CHECK(top.exit_code == 0);
  for (const std::vector<std::string>& command : commands)
    if (command.size() == 1) CHECK(contains(top.out, "  " + command[0] + " "));
}

TEST_CASE("an unknown flag or a stray argument exits 2 before anything runs") {
  const std::string config = unreachable_config();
  const std::vector<std::vector<std::string>> refused = {
      {"run", "-c", config, "--no-such-flag"},
      {"check", "-c", config, "stray"},
      {"status", "-c", config, "--lag"},
      {"replay", "-c", config, "--file", "a", "b"},
      {"decode", "--format", "protobuf"},
      {"config-reference", "--all"},
      {"offsets", "-c", config},                                                // show or reset?
      {"offsets", "reset", "-c", config, "--to-earliest", "--to-offset", "5"},  // two targets
      {"offsets", "show", "-c", config, "--to-latest"},                         // a reset flag
      {"dead-letters", "list", "-c", config, "--kind", "nonsense"},             // not a kind
      {"dead-letters", "show", "-c", config},                                   // which one?
      {"dead-letters", "purge", "-c", config, "--limit", "5"},                  // a list flag
      {"run"},                                                                  // -c is required
      {"replay", "-c", config},  // --file is required
      {"no-such-command"},
      {},
  };
  for (const auto& args : refused) {
    std::string line;
    for (const auto& a : args)
      line += a + " ";
    INFO(line);
    const auto start = std::chrono::steady_clock::now();
    const command_result r = run_sluice(args, "", 30);
    CHECK(r.exit_code == 2);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(!r.err.empty());  // says why
  }
}

TEST_CASE("--version names sluice's version and commit, librdkafka and libpq") {
  const command_result r = run_sluice({"--version"}, "", 30);
  CHECK(r.exit_code == 0);
  INFO(r.out);
  CHECK(std::regex_search(r.out,
                          std::regex(R"(^sluice \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?\))")));
  CHECK(std::regex_search(r.out, std::regex(R"(\nlibrdkafka \d+\.\d+\.\d+)")));
  CHECK(std::regex_search(r.out, std::regex(R"(\nlibpq \d+\.\d+)")));
}

}  // namespace sluice::testing
