#include "connector/cli/commands.h"

#include <iostream>

#include "connector/config/config_reference.h"

// `sluice config-reference`: every setting, as Markdown.
namespace sluice {

int config_reference_command() {
  std::cout << config_reference_markdown();
  return 0;
}

}  // namespace sluice
