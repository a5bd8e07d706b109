#include "connector/base/worker_id.h"

#include <unistd.h>

#include <cstring>

namespace sluice {

std::string local_worker_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace sluice
