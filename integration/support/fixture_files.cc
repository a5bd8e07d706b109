#include "integration/support/fixture_files.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace sluice::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture_path(const std::string& relative) {
  const char* source = std::getenv("SLUICE_SOURCE_DIR");
  REQUIRE_MESSAGE(source, "SLUICE_SOURCE_DIR is not set (run through ctest)");
  return std::string(source) + "/tests/fixtures/" + relative;
}

std::string read_fixture(const std::string& relative) {
  return read_file(fixture_path(relative));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace sluice::testing
