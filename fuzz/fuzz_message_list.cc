#include "fuzz/fuzz_message_list.h"

namespace sluice::fuzz {

std::vector<std::string_view> split_messages(std::string_view input) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = input.find(message_separator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + message_separator.size());
  }
  parts.push_back(input);
  return parts;
}

}  // namespace sluice::fuzz
