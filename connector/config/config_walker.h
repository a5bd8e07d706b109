#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "connector/config/config_error.h"
#include "connector/config/config_table.h"

namespace sluice {

// A key the file gives a value to.
struct found_value {
  const config_key* key;
  std::string name;  // the <source>/<topic> segment for keys under one, else ""
  std::string path;  // as the user reads it: batch.size, tables."ROOT.SAMPLE".target
  YAML::Node node;
  YAML::Mark mark;  // of the value (of its key when the value has none)
};

// A map entry under a user-named segment (tables.<source>, topic.overrides.<topic>): it
// exists, with defaults, even when it sets nothing.
struct found_entry {
  std::string group;  // the key-name prefix up to the segment: "tables.<source>"
  std::string name;   // "ROOT.SAMPLE"
  std::string path;   // tables."ROOT.SAMPLE"
  YAML::Mark mark;    // of the name
};

struct walk_result {
  std::vector<found_value> values;  // in file order
  std::vector<found_entry> entries;
  std::vector<config_error> errors;  // unknown keys, duplicates, misplaced values (file unset)
};

// Matches a parsed YAML document against the key table. Nesting and dots are interchangeable
// (`postgres: {dsn: ..}` and `postgres.dsn: ..` name one key), except below a user-named
// segment, which is always one YAML map key (but for transforms.<name>, whose names are one
// segment: transforms.route.type is Connect's own spelling); map-typed keys (kafka, column.types)
// end the matching. Unknown keys get a "did you mean" when one is near; a key given twice, in
// either spelling, is an error.
walk_result walk_config(const YAML::Node& root);

// An error about `key` at a YAML mark (1-based line and column; none for a null mark).
config_error error_at(const YAML::Mark& mark, std::string key, std::string message);

}  // namespace sluice
