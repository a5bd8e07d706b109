#include "integration/support/metrics_text.h"

#include <sstream>

namespace sluice::testing {

double metric_sample(const std::string& metrics, const std::string& prefix) {
  std::istringstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

}  // namespace sluice::testing
