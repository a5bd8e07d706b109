#pragma once

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

namespace sluice {

// What a first pass over the YAML text found: how many documents it holds, where the second
// starts, and whether the parser stopped moving.
struct yaml_documents {
  int count = 0;
  YAML::Mark second;                  // where the second document starts (count > 1)
  std::optional<YAML::Mark> stalled;  // where yaml-cpp stopped making progress
};

// Counts the documents without building nodes, stopping after the third. yaml-cpp 0.7's
// YAML::LoadAll never returns on a stray flow indicator at the top level (",a" yields empty
// documents at offset 0 forever, allocating as it goes): a document that starts where the
// previous one started is reported as `stalled` instead. Throws YAML::Exception as the parser
// does.
yaml_documents count_yaml_documents(const std::string& text);

}  // namespace sluice
