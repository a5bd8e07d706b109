#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"

namespace sluice::fuzz {
namespace {

namespace fs = std::filesystem;

// The committed corpus of one target, in name order: fuzz/corpus/<target>/*.
std::vector<fs::path> corpus_files(std::string_view target) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(SLUICE_FUZZ_CORPUS_DIR) / target;
  if (!fs::is_directory(dir)) return files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs every corpus input of one target through the body its libFuzzer executable runs
// (fuzz/fuzz_targets.h): a crash fails the test binary, a broken invariant fails the case
// and names the input.
void replay(std::string_view target) {
  const auto& targets = all_fuzz_targets();
  const auto it = std::find_if(targets.begin(), targets.end(),
                               [&](const fuzz_target& t) { return t.name == target; });
  REQUIRE(it != targets.end());
  const std::vector<fs::path> files = corpus_files(target);
  REQUIRE_MESSAGE(!files.empty(), "no committed corpus for fuzz target " << target);
  for (const fs::path& file : files) {
    try {
      it->run(read_file(file));
    } catch (const invariant_violation& e) {
      FAIL_CHECK(file.filename().string() << ": " << std::string(e.what()));
    }
  }
}

}  // namespace

TEST_CASE("the datastream fuzz corpus decodes without breaking an invariant") {
  replay("datastream");
}

TEST_CASE("the datastream_avro fuzz corpus decodes without breaking an invariant") {
  replay("datastream_avro");
}

TEST_CASE("the confluent_avro fuzz corpus decodes without breaking an invariant") {
  replay("confluent_avro");
}

TEST_CASE("the goldengate fuzz corpus decodes without breaking an invariant") {
  replay("goldengate");
}

TEST_CASE("the debezium fuzz corpus decodes without breaking an invariant") {
  replay("debezium");
}

TEST_CASE("the dsql fuzz corpus decodes without breaking an invariant") {
  replay("dsql");
}

TEST_CASE("the format_auto fuzz corpus is detected and decoded without breaking an invariant") {
  replay("format_auto");
}

TEST_CASE("the kcat_line fuzz corpus reads and round-trips without breaking an invariant") {
  replay("kcat_line");
}

TEST_CASE("the chunk_assembly fuzz corpus reassembles as the plain reading of the rules says") {
  replay("chunk_assembly");
}

TEST_CASE("the config fuzz corpus loads or is refused, and what loads describes itself back") {
  replay("config");
}

}  // namespace sluice::fuzz
