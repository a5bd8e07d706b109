#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace sluice {

// How far a replay has read its input.
struct progress_snapshot {
  size_t lines = 0;
  uint64_t bytes = 0;
  std::optional<uint64_t> total_bytes;  // the file's size; unknown for a pipe
  double elapsed_seconds = 0;
};

// One status line, at most `width` columns (pure: the tests pin its text):
//   "[########------------]  40%  12,345 lines  3.1 MiB / 7.8 MiB  8,210 lines/s  ETA 0:05"
// without a known total:
//   "12,345 lines  3.1 MiB  8,210 lines/s  0:05 elapsed"
// The bar is dropped when it would be narrower than 10 columns.
std::string format_progress(const progress_snapshot& s, size_t width);

// "12,345"
std::string format_count(uint64_t n);
// "512 B", "3.1 KiB", "7.8 MiB", "1.2 GiB"
std::string format_bytes(uint64_t n);
// "0:05", "12:34", "1:02:03"
std::string format_duration(double seconds);

// Draws format_progress() on one terminal line of `out` (stderr), redrawn in place at most
// every 100 ms. When disabled (stderr is not a terminal, or --no-progress) it draws nothing.
//
// Lifecycle: one per replay; clear() before writing anything else to `out`, finish() (or the
// destructor) erases the line. Threading: one thread.
class progress_bar {
 public:
  progress_bar(std::optional<uint64_t> total_bytes, bool enabled, std::FILE* out = stderr);
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  // Whether `out` is a terminal (where a bar can be redrawn in place).
  static bool is_terminal(std::FILE* out);

  void update(size_t lines, uint64_t bytes);
  // Erases the drawn line (the next update() draws it again).
  void clear();
  void finish() { clear(); }

 private:
  void draw();
  size_t width() const;

  std::optional<uint64_t> _total;
  bool _enabled;
  std::FILE* _out;
  std::chrono::steady_clock::time_point _start;
  std::chrono::steady_clock::time_point _last_draw{};
  size_t _lines = 0;
  uint64_t _bytes = 0;
  bool _drawn = false;
};

}  // namespace sluice
