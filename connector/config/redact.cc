#include "connector/config/redact.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace sluice {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

constexpr std::string_view password_keywords[] = {"password", "sslpassword"};

// The end of a keyword-form value starting at `i`: quoted ('...' with backslash escapes) or
// up to the next whitespace.
std::size_t keyword_value_end(std::string_view s, std::size_t i) {
  if (i < s.size() && s[i] == '\'') {
    for (++i; i < s.size(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '\'') {
        return i + 1;
      }
    }
    return s.size();
  }
  while (i < s.size() && !is_space(s[i]))
    ++i;
  return i;
}

// The spans [begin, end) of the passwords in a DSN: a URI's user-info password (up to the
// authority's last '@': a password may hold '@' or '/') and every password keyword's value, in
// keyword form (after the start or whitespace) or as a URI query parameter (after '?' or '&').
// When unsure where a password ends, the span runs longer rather than shorter.
std::vector<std::pair<std::size_t, std::size_t>> password_spans(std::string_view dsn) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t i = 0;
  const std::size_t scheme = dsn.find("://");
  if (scheme != std::string_view::npos) {
    const std::size_t start = scheme + 3;
    i = start;
    const std::string_view rest = dsn.substr(start);
    const std::size_t first_at = rest.find('@');
    if (first_at != std::string_view::npos) {
      const std::size_t authority_end = rest.find_first_of("/?#", first_at);
      const std::size_t at = rest.substr(0, authority_end).rfind('@');
      const std::size_t colon = rest.substr(0, at).find(':');
      if (colon != std::string_view::npos && colon + 1 < at) {
        spans.emplace_back(start + colon + 1, start + at);
        i = start + at;
      }
    }
  }
  while (i < dsn.size()) {
    const bool at_word_start =
        i == 0 || is_space(dsn[i - 1]) || dsn[i - 1] == '?' || dsn[i - 1] == '&';
    std::string_view keyword;
    if (at_word_start) {
      for (auto k : password_keywords) {
        if (dsn.substr(i).starts_with(k)) keyword = k;
      }
    }
    if (keyword.empty()) {
      ++i;
      continue;
    }
    std::size_t j = i + keyword.size();
    while (j < dsn.size() && is_space(dsn[j]))
      ++j;
    if (j >= dsn.size() || dsn[j] != '=') {
      i = j;
      continue;
    }
    ++j;
    const bool in_query = i > 0 && (dsn[i - 1] == '?' || dsn[i - 1] == '&');
    while (!in_query && j < dsn.size() && is_space(dsn[j]))
      ++j;
    std::size_t end = j;
    if (in_query) {
      while (end < dsn.size() && dsn[end] != '&' && dsn[end] != '#')
        ++end;
    } else {
      end = keyword_value_end(dsn, j);
    }
    if (end > j) spans.emplace_back(j, end);
    i = end;
  }
  return spans;
}

}  // namespace

std::string redact(std::string_view dsn) {
  std::string out;
  std::size_t at = 0;
  for (const auto& [begin, end] : password_spans(dsn)) {
    out.append(dsn.substr(at, begin - at));
    out += redacted_text;
    at = end;
  }
  out.append(dsn.substr(at));
  return out;
}

std::vector<std::string> dsn_passwords(std::string_view dsn) {
  std::vector<std::string> out;
  for (const auto& [begin, end] : password_spans(dsn)) {
    const std::string_view text = dsn.substr(begin, end - begin);
    out.emplace_back(text);
    // A quoted keyword value is also quoted without its quotes, as libpq reads it.
    if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'')
      out.emplace_back(text.substr(1, text.size() - 2));
  }
  return out;
}

std::string redact_url_user_info(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const std::size_t start = scheme + 3;
  const std::size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(redacted_text) +
         std::string(url.substr(at));
}

std::string redact_secrets(std::string_view text, std::span<const std::string> secrets) {
  std::vector<std::string_view> by_length;
  for (const std::string& s : secrets) {
    if (!s.empty()) by_length.push_back(s);
  }
  std::sort(by_length.begin(), by_length.end(),
            [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  if (by_length.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool hidden = false;
    for (std::string_view s : by_length) {
      if (text.substr(i, s.size()) == s) {
        out += redacted_text;
        i += s.size();
        hidden = true;
        break;
      }
    }
    if (!hidden) out.push_back(text[i++]);
  }
  return out;
}

bool is_sensitive_kafka_property(std::string_view name) {
  static constexpr std::string_view sensitive[] = {"sasl.password",
                                                   "ssl.key.password",
                                                   "ssl.keystore.password",
                                                   "ssl.key.pem",
                                                   "ssl_key",
                                                   "sasl.oauthbearer.client.secret",
                                                   "sasl.oauthbearer.config",
                                                   "sasl.jaas.config"};
  for (auto s : sensitive) {
    if (name == s) return true;
  }
  return name.find("password") != std::string_view::npos ||
         name.find("secret") != std::string_view::npos;
}

}  // namespace sluice
