// sluice's command line (issue 15): every command has --help (exit 0), an unknown flag or a
// stray argument is refused with exit 2 before anything runs, and --version names the commit
// and the librdkafka and libpq versions. No service is needed: a refused command line must
// never reach one.

#include <doctest/doctest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "integration/support/services.h"
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
                                                        {"config", "import"},
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
    // Says why, in sluice's words (not CLI11's "At Most 1 required", "Could not convert").
    CHECK(contains(r.err, "invalid command line: "));
  }
}

TEST_CASE("a refused command line names the command and the word, and its help the codes") {
  const std::string config = unreachable_config();
  const command_result twice = run_sluice({"run", "-c", config, "-c", config}, "", 30);
  CHECK(twice.exit_code == 2);
  CHECK(contains(twice.err, "sluice run: invalid command line: --config is given 2 times"));
  const command_result id = run_sluice({"dead-letters", "show", "-c", config, "abc"}, "", 30);
  CHECK(id.exit_code == 2);
  CHECK(contains(id.err,
                 "sluice dead-letters show: invalid command line: ID takes a whole "
                 "number, not \"abc\""));
  const command_result unknown = run_sluice({"bogus"}, "", 30);
  CHECK(unknown.exit_code == 2);
  CHECK(contains(unknown.err, "\"bogus\" is not a command"));
  // Each command's help lists its own exit codes: status never exits 1, purge does.
  const command_result status = run_sluice({"status", "--help"}, "", 30);
  CHECK(contains(status.out, "  3  a service could not be reached"));
  CHECK(!contains(status.out, "  1  "));
  CHECK(contains(run_sluice({"dead-letters", "purge", "--help"}, "", 30).out,
                 "  1  letters match but --yes was not given"));
}

TEST_CASE("replay exits 3 when PostgreSQL cannot be reached, as every command does") {
  const command_result r =
      run_sluice({"replay", "-c", unreachable_config(), "--file", "-"}, "", 120);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(contains(r.err, "sluice replay: PostgreSQL: "));
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

namespace sluice::testing {

TEST_CASE("config import: 0 all mapped, 1 some not (YAML written), 2 not a JDBC sink's config") {
  const std::string all = write_run_file("import_all", R"({"name": "orders-sink", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db:5432/replica?ssl=true",
    "connection.username": "sink", "connection.password": "s3cret",
    "insert.mode": "upsert", "primary.key.mode": "record_key", "topics": "a.b.c"}})");
  const std::string out = run_dir() + "/import_all.yaml";
  const command_result ok = run_sluice({"config", "import", all, "-o", out}, "", 30);
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(contains(ok.err, "PGPASSWORD"));
  const std::string yaml = run_shell("cat " + out);
  CHECK(contains(yaml, "sslmode=verify-full"));
  CHECK_FALSE(contains(yaml + ok.out + ok.err, "s3cret"));

  // A transform sluice does not run: listed, the rest (the peer's default modes) mapped.
  const std::string some = write_run_file("import_some", R"({"name": "x", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "a",
    "transforms": "custom", "transforms.custom.type": "com.example.Custom"}})");
  const command_result partly = run_sluice({"config", "import", some}, "", 30);
  CHECK(partly.exit_code == 1);
  CHECK(contains(partly.out, "table.name.style: confluent"));
  CHECK(contains(partly.out, "insert.mode: insert"));
  CHECK(contains(partly.err, "transforms.custom"));

  const std::string other = write_run_file(
      "import_other", R"({"connector.class": "io.debezium.connector.mysql.MySqlConnector"})");
  CHECK(run_sluice({"config", "import", other}, "", 30).exit_code == 2);
  CHECK(run_sluice({"config", "import", run_dir() + "/no-such-file"}, "", 30).exit_code == 2);
}

}  // namespace sluice::testing
