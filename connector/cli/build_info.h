#pragma once

#include <string>

namespace sluice {

// What `sluice --version` prints: sluice's version and the git commit it was built from
// (cmake/git_commit.cmake), and the librdkafka and libpq it runs with (asked at run time:
// the shared libraries may be newer than the headers).
std::string version_text();
// sluice's version and the git commit alone (GET / of the Connect REST API).
std::string version_number();
std::string commit_id();

}  // namespace sluice
