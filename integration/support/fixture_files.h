#pragma once

// The committed fixtures (tests/fixtures/) as end-to-end tests read them: whole files, as
// bytes. A missing file fails the test at once, naming it.

#include <string>
#include <vector>

namespace sluice::testing {

// A file's bytes.
std::string read_file(const std::string& path);

// $SLUICE_SOURCE_DIR/tests/fixtures/<relative>, and its bytes.
std::string fixture_path(const std::string& relative);
std::string read_fixture(const std::string& relative);

// The non-empty lines of a text, without their newlines.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace sluice::testing
