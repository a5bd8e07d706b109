#pragma once

#include <string>

namespace sluice {

// One problem in a configuration file, placed as precisely as the file allows:
//   sluice.yaml:12:3: batch.size: expected an integer between 1 and 10000000, got "lots"
struct config_error {
  std::string file;
  int line = 0;     // 1-based; 0 when the problem has no place (a required key is missing)
  int column = 0;   // 1-based
  std::string key;  // dotted path (tables."ROOT.SAMPLE".target, topics[1]); "" for the file
  std::string message;

  std::string to_string() const;
};

}  // namespace sluice
