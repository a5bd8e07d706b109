#pragma once

#include <string>

namespace sluice {

// What `sluice --version` prints: sluice's version and the git commit it was built from
// (cmake/git_commit.cmake), and the librdkafka and libpq it runs with (asked at run time:
// the shared libraries may be newer than the headers).
std::string version_text();

}  // namespace sluice
