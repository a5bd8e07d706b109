#include "connector/http/request_auth.h"

#include <cctype>
#include <cstdint>

#include "core/model/base64.h"

namespace sluice {
namespace {

// What follows an Authorization header's `scheme` ("bearer ", lower case, matched in any
// case), or nullopt when the header is missing or has another scheme.
std::optional<std::string_view> credentials(const char* header, std::string_view scheme) {
  if (header == nullptr) return std::nullopt;
  std::string_view h(header);
  if (h.size() < scheme.size()) return std::nullopt;
  for (size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(h[i])) != scheme[i]) return std::nullopt;
  }
  return h.substr(scheme.size());
}

}  // namespace

bool loopback_host(const char* header) {
  if (header == nullptr) return true;
  std::string h(header);
  for (char& c : h)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string host;
  if (h.starts_with("[")) {
    const size_t close = h.find(']');
    if (close == std::string::npos) return false;
    host = h.substr(1, close - 1);
    const std::string rest = h.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(":")) return false;
  } else {
    host = h.substr(0, h.find(':'));
  }
  if (host == "localhost" || host == "::1") return true;
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

bool same_secret(std::string_view given, std::string_view secret) {
  unsigned char diff = given.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i) {
    const char expected = secret.empty() ? '\0' : secret[i % secret.size()];
    diff |= static_cast<unsigned char>(given[i] ^ expected);
  }
  return diff == 0;
}

std::optional<std::string_view> bearer_token(const char* header) {
  std::optional<std::string_view> given = credentials(header, "bearer ");
  if (!given) return std::nullopt;
  std::string_view h = *given;
  while (!h.empty() && h.front() == ' ')
    h.remove_prefix(1);
  while (!h.empty() && h.back() == ' ')
    h.remove_suffix(1);
  return h;
}

std::optional<std::string> basic_password(const char* header) {
  const std::optional<std::string_view> h = credentials(header, "basic ");
  if (!h) return std::nullopt;
  std::string decoded;
  uint32_t bits = 0;
  int count = 0;
  for (char c : *h) {
    if (c == '=' || c == ' ') continue;
    const int d = base64_digit(c);
    if (d < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(d);
    count += 6;
    if (count >= 8) {
      count -= 8;
      decoded.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return decoded.substr(colon + 1);
}

}  // namespace sluice
