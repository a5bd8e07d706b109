#include "integration/support/kcat_lines.h"

#include <cstdio>

namespace sluice::testing {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

std::string kcat_line(const std::string& topic, int partition, int64_t offset,
                      const std::optional<std::string>& key,
                      const std::optional<std::string>& payload, const std::string& headers,
                      std::optional<int64_t> timestamp_ms) {
  std::string s =
      "{\"topic\":" + json_string(topic) + ",\"partition\":" + std::to_string(partition) +
      ",\"offset\":" + std::to_string(offset) + ",\"tstype\":\"create\",\"ts\":" +
      std::to_string(timestamp_ms.value_or(1'767'225'600'000 + offset)) + ",\"broker\":1,";
  if (!headers.empty()) s += "\"headers\":" + headers + ",";
  s += "\"key\":" + (key ? json_string(*key) : std::string("null")) + ",";
  s += "\"payload\":" + (payload ? json_string(*payload) : std::string("null")) + "}";
  return s;
}

}  // namespace sluice::testing
