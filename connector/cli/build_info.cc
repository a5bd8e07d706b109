#include "connector/cli/build_info.h"

#include <libpq-fe.h>
#include <librdkafka/rdkafka.h>

#include "sluice_git_commit.h"  // generated: cmake/git_commit.cmake

namespace sluice {

std::string version_text() {
  // PQlibVersion(): major * 10000 + minor for PostgreSQL 10 and later.
  const int pq = PQlibVersion();
  return std::string("sluice ") + SLUICE_VERSION + " (commit " + SLUICE_GIT_COMMIT + ")\n" +
         "librdkafka " + rd_kafka_version_str() + "\n" + "libpq " + std::to_string(pq / 10000) +
         "." + std::to_string(pq % 10000);
}

std::string version_number() {
  return SLUICE_VERSION;
}

std::string commit_id() {
  return SLUICE_GIT_COMMIT;
}

}  // namespace sluice
