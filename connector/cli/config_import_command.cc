#include <fstream>
#include <iostream>
#include <sstream>

#include "connector/cli/commands.h"
#include "connector/config/import/connect_config.h"
#include "connector/config/import/connector_import.h"

// `sluice config import FILE [-o OUT]`: a Kafka Connect JDBC sink's config as sluice YAML
// (connector/config/import/). Exit 0: every key mapped; 1: some not (listed on stderr, the YAML
// still written); 2: the file unreadable or not a JDBC sink's config.
namespace sluice {

int config_import_command(const config_import_options& options) {
  std::ifstream in(options.file, std::ios::binary);
  if (!in) {
    std::cerr << "sluice config import: cannot read " << options.file << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const connect_config_result read = read_connect_config(text.str());
  if (!read.config) {
    std::cerr << "sluice config import: " << options.file << ": " << read.error << "\n";
    return 2;
  }
  const import_result r = import_connector(*read.config, options.file);
  if (!r.error.empty()) {
    std::cerr << "sluice config import: " << options.file << ": " << r.error << "\n";
    return 2;
  }
  if (options.output.empty()) {
    std::cout << r.yaml;
  } else {
    std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
    out << r.yaml;
    if (!out) {
      std::cerr << "sluice config import: cannot write " << options.output << "\n";
      return 2;
    }
  }
  if (!r.variables.empty()) {
    std::cerr << "Set these environment variables before `sluice check` and `sluice run`:\n";
    for (const auto& [name, where] : r.variables)
      std::cerr << "  " << name << ": " << where << "\n";
  }
  if (!r.left_out.empty()) {
    std::cerr << "Not mapped (" << r.left_out.size() << "): sluice behaves differently here\n";
    for (const auto& u : r.left_out)
      std::cerr << "  " << u.key << ": " << u.why << "\n";
    return 1;
  }
  return 0;
}

}  // namespace sluice
