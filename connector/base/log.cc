#include "connector/base/log.h"

#include "connector/config/redact.h"
#include "core/model/json_text.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace sluice {
namespace {

std::atomic<int> g_min_level{static_cast<int>(log_severity::info)};
std::atomic<bool> g_json{false};

// A text line is one line: a message's control characters (a reason quoting a value with a
// newline, an ANSI escape) are written as \n, \r, \t or \xNN, so that no message can forge
// a log line of its own or move the terminal's cursor.
void append_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 0xf]);
    }
  }
}

std::mutex g_mutex;
std::vector<std::string> g_secrets;  // under g_mutex

const char* level_name(log_severity l) {
  switch (l) {
    case log_severity::debug:
      return "debug";
    case log_severity::info:
      return "info";
    case log_severity::warn:
      return "warn";
    case log_severity::error:
      return "error";
  }
  return "info";
}

}  // namespace

void log::configure(log_severity min_level, bool json) {
  g_min_level = static_cast<int>(min_level);
  g_json = json;
}

void log::hide(std::vector<std::string> secrets) {
  std::lock_guard lock(g_mutex);
  g_secrets = std::move(secrets);
}

bool log::enabled(log_severity level) {
  return static_cast<int>(level) >= g_min_level.load();
}

void log::write(log_severity level, std::string_view component, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char ts[64];
  std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  std::lock_guard lock(g_mutex);
  // Redacted before JSON escaping, which could hide a secret's characters from the search.
  const std::string shown = redact_secrets(message, g_secrets);
  std::string line;
  if (g_json) {
    line = "{\"ts\":\"";
    line += ts;
    line += "\",\"level\":\"";
    line += level_name(level);
    line += "\",\"component\":";
    append_json_string(line, component);
    line += ",\"msg\":";
    append_json_string(line, shown);
    line += "}\n";
  } else {
    line = ts;
    line += ' ';
    line += level_name(level);
    line += ' ';
    append_escaped(line, component);
    line += ": ";
    // A trailing newline (libpq ends its errors with one) ends the line as it is.
    std::string_view text = shown;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.remove_suffix(1);
    append_escaped(line, text);
    line += '\n';
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace sluice
