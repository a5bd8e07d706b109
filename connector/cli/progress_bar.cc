#include "connector/cli/progress_bar.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace sluice {

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_bytes(uint64_t n) {
  if (n < 1024) return std::to_string(n) + " B";
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n) / 1024;
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(units)) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[unit]);
  return buf;
}

std::string format_duration(double seconds) {
  const auto total = static_cast<uint64_t>(std::max(0.0, seconds));
  const uint64_t h = total / 3600, m = total / 60 % 60, s = total % 60;
  char buf[48];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(m),
                  static_cast<unsigned long long>(s));
  }
  return buf;
}

std::string format_progress(const progress_snapshot& s, size_t width) {
  const bool timed = s.elapsed_seconds > 0;
  const std::string rate =
      timed ? format_count(static_cast<uint64_t>(static_cast<double>(s.lines) / s.elapsed_seconds))
            : std::string("-");
  std::string stats;
  if (!s.total_bytes) {
    stats = format_count(s.lines) + " lines  " + format_bytes(s.bytes) + "  " + rate +
            " lines/s  " + format_duration(s.elapsed_seconds) + " elapsed";
    return stats.substr(0, width);
  }
  const uint64_t total = *s.total_bytes;
  const uint64_t done = std::min(s.bytes, total);
  const uint64_t percent = total == 0 ? 100 : done * 100 / total;
  std::string eta = "-:--";
  if (timed && done > 0) {
    eta = format_duration(static_cast<double>(total - done) * s.elapsed_seconds /
                          static_cast<double>(done));
  }
  std::string pct = std::to_string(percent) + "%";
  pct.insert(0, 4 - pct.size(), ' ');
  stats = pct + "  " + format_count(s.lines) + " lines  " + format_bytes(s.bytes) + " / " +
          format_bytes(total) + "  " + rate + " lines/s  ETA " + eta;
  constexpr size_t min_bar = 10;
  if (width < stats.size() + 3 + min_bar) return stats.substr(0, width);
  const size_t bar = width - stats.size() - 3;
  const size_t filled =
      total == 0 ? bar : static_cast<size_t>(done * bar / total);  // no overflow: bar < 2^16
  return "[" + std::string(filled, '#') + std::string(bar - filled, '-') + "] " + stats;
}

progress_bar::progress_bar(std::optional<uint64_t> total_bytes, bool enabled, std::FILE* out)
    : _total(total_bytes), _enabled(enabled), _out(out), _start(std::chrono::steady_clock::now()) {}

progress_bar::~progress_bar() {
  finish();
}

bool progress_bar::is_terminal(std::FILE* out) {
  return ::isatty(::fileno(out)) == 1;
}

void progress_bar::update(size_t lines, uint64_t bytes) {
  _lines = lines;
  _bytes = bytes;
  if (!_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (_drawn && now - _last_draw < std::chrono::milliseconds(100)) return;
  _last_draw = now;
  draw();
}

void progress_bar::clear() {
  if (!_drawn) return;
  std::fputs("\r\x1b[K", _out);
  std::fflush(_out);
  _drawn = false;
}

void progress_bar::draw() {
  progress_snapshot s;
  s.lines = _lines;
  s.bytes = _bytes;
  s.total_bytes = _total;
  s.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - _start).count();
  const std::string text = format_progress(s, width());
  std::fputs("\r", _out);
  std::fputs(text.c_str(), _out);
  std::fputs("\x1b[K", _out);
  std::fflush(_out);
  _drawn = true;
}

size_t progress_bar::width() const {
  winsize ws{};
  size_t columns = 80;
  if (::ioctl(::fileno(_out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
  return std::min<size_t>(columns, 1000) - 1;  // the last column would wrap on some terminals
}

}  // namespace sluice
