#include "connector/cli/usage_errors.h"

#include <doctest/doctest.h>

#include <string>

#include "connector/cli/exit_codes.h"

namespace sluice {

TEST_CASE("a refused command line is said in sluice's words, naming the command") {
  // CLI11 2.1's messages for the lines of issue 27, and what sluice prints instead.
  CHECK(usage_error("run", "--config: At Most 1 required but received 2", {}) ==
        "sluice run: invalid command line: --config is given 2 times; give it once\n"
        "(sluice run --help lists what it takes)\n");
  CHECK(usage_error("dead-letters show", "Could not convert: id = abc", {})
            .starts_with("sluice dead-letters show: invalid command line: ID takes a whole number, "
                         "not \"abc\"\n"));
  CHECK(usage_error("dead-letters replay", "Could not convert: --id = 7x", {})
            .find("--id takes a whole number, not \"7x\"") != std::string::npos);
  CHECK(usage_error("dead-letters list",
                    "--kind: nonsense not in {decode,routing,rejected,ddl_failed,keyless,chunk}",
                    {})
            .find("--kind: \"nonsense\" is not one of decode, routing, rejected, ddl_failed, "
                  "keyless, chunk") != std::string::npos);
  CHECK(usage_error("dead-letters list", "--limit: Value 0 not in range 1 to 18446744073709551615",
                    {})
            .find("--limit takes a whole number of at least 1, not 0") != std::string::npos);
  CHECK(usage_error("offsets reset",
                    "Exactly 1 option from [--to-earliest,--to-latest,--to-offset,--to-datetime] "
                    "is required and 2 were given",
                    {})
            .find("give exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime "
                  "(2 given)") != std::string::npos);
  CHECK(usage_error("check", "The following argument was not expected: stray", {})
            .find("sluice check: invalid command line: unexpected stray") != std::string::npos);
  CHECK(usage_error("", "A subcommand is required", {"bogus"})
            .find("\"bogus\" is not a command (run, check,") != std::string::npos);
  CHECK(usage_error("", "A subcommand is required", {}).find("a command is needed: run, check,") !=
        std::string::npos);
  CHECK(usage_error("offsets", "A subcommand is required", {})
            .find("a command is needed after \"offsets\"") != std::string::npos);
  // Anything else passes through, in the same frame.
  CHECK(usage_error("run", "--config is required", {}) ==
        "sluice run: invalid command line: --config is required\n"
        "(sluice run --help lists what it takes)\n");
  // A long word quoted back costs no more than its length (no regex backtracking).
  const std::string huge(200'000, '=');
  CHECK(usage_error("status", "Could not convert: id = " + huge, {}).size() > huge.size());
}

TEST_CASE("each command's help lists only the exit codes it can end with") {
  const std::string purge = exit_codes_for("dead-letters purge");
  CHECK(purge.starts_with("Exit codes:\n  0  purged, or nothing matched\n"));
  CHECK(purge.find("  1  letters match but --yes was not given") != std::string::npos);
  CHECK(purge.find("  3  ") != std::string::npos);
  const std::string run = exit_codes_for("run");
  CHECK(run.find("  1  the connector failed") != std::string::npos);
  CHECK(run.find("  3  ") == std::string::npos);  // run waits out what it cannot reach
  const std::string status = exit_codes_for("status");
  CHECK(status.find("  1  ") == std::string::npos);
  CHECK(status.find("  3  a service could not be reached") != std::string::npos);
  CHECK(exit_codes_for("decode").find("  1  some message was refused") != std::string::npos);
  CHECK(exit_codes_for("config-reference").starts_with("Exit codes:\n  0  printed\n  2  usage"));
  // The top level lists them all; a group its usage error only.
  CHECK(exit_codes_for("").find("  3  ") != std::string::npos);
  CHECK(exit_codes_for("offsets") ==
        "Exit codes:\n  2  usage or configuration error (found without contacting anything)\n");
}

}  // namespace sluice
