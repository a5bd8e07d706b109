#include "connector/cli/progress_bar.h"

#include <doctest/doctest.h>

namespace sluice {

TEST_CASE("counts, sizes and durations read as a person would write them") {
  CHECK(format_count(0) == "0");
  CHECK(format_count(999) == "999");
  CHECK(format_count(1000) == "1,000");
  CHECK(format_count(1234567) == "1,234,567");
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.0 KiB");
  CHECK(format_bytes(3 * 1024 * 1024 + 100 * 1024) == "3.1 MiB");
  CHECK(format_bytes(5ull << 40) == "5.0 TiB");
  CHECK(format_duration(0) == "0:00");
  CHECK(format_duration(5.9) == "0:05");
  CHECK(format_duration(754) == "12:34");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-1) == "0:00");
}

TEST_CASE("the bar shows lines, bytes of the file, rate and ETA") {
  progress_snapshot s;
  s.lines = 12345;
  s.bytes = 4 * 1024 * 1024;
  s.total_bytes = 10 * 1024 * 1024;
  s.elapsed_seconds = 2;
  // 40% of a 20-column bar; 6,172 lines/s; 6 MiB left at 2 MiB/s: 3 s.
  const std::string stats = " 40%  12,345 lines  4.0 MiB / 10.0 MiB  6,172 lines/s  ETA 0:03";
  CHECK(format_progress(s, stats.size() + 3 + 20) == "[########------------] " + stats);
}

TEST_CASE("the bar is full at the end and never past it") {
  progress_snapshot s;
  s.lines = 10;
  s.bytes = 120;  // the file grew while it was read
  s.total_bytes = 100;
  s.elapsed_seconds = 1;
  CHECK(format_progress(s, 200).starts_with("[#"));
  CHECK(format_progress(s, 200).find("-") == std::string::npos);
  CHECK(format_progress(s, 200).find(" 100%  10 lines  120 B / 100 B  10 lines/s  ETA 0:00") !=
        std::string::npos);
}

TEST_CASE("before any time has passed there is no rate and no ETA") {
  progress_snapshot s;
  s.total_bytes = 1000;
  const std::string stats = "  0%  0 lines  0 B / 1000 B  - lines/s  ETA -:--";
  CHECK(format_progress(s, stats.size()) == stats);
  CHECK(format_progress(s, 100) == "[" + std::string(100 - stats.size() - 3, '-') + "] " + stats);
}

TEST_CASE("a narrow terminal drops the bar, then cuts the text") {
  progress_snapshot s;
  s.lines = 1;
  s.bytes = 50;
  s.total_bytes = 100;
  s.elapsed_seconds = 1;
  const std::string stats = " 50%  1 lines  50 B / 100 B  1 lines/s  ETA 0:01";
  CHECK(format_progress(s, stats.size() + 12) == stats);
  CHECK(format_progress(s, 10) == stats.substr(0, 10));
}

TEST_CASE("without a known size (a pipe) it shows what was read and the elapsed time") {
  progress_snapshot s;
  s.lines = 2500;
  s.bytes = 2048;
  s.elapsed_seconds = 65;
  CHECK(format_progress(s, 100) == "2,500 lines  2.0 KiB  38 lines/s  1:05 elapsed");
}

TEST_CASE("a disabled bar writes nothing") {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  REQUIRE(out);
  {
    progress_bar bar(100, false, out);
    bar.update(1, 50);
    bar.finish();
  }
  std::fclose(out);
  CHECK(size == 0);
  std::free(text);
}

TEST_CASE("an enabled bar redraws one line in place and erases it when done") {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  REQUIRE(out);
  {
    progress_bar bar(100, true, out);
    bar.update(1, 50);
    bar.update(2, 60);  // within 100 ms: not redrawn
    bar.finish();
  }
  std::fclose(out);
  const std::string written(text, size);
  std::free(text);
  CHECK(written.starts_with("\r["));
  CHECK(written.find(" 50%  1 lines") != std::string::npos);
  CHECK(written.find("60 B") == std::string::npos);
  CHECK(written.ends_with("\x1b[K\r\x1b[K"));
  CHECK(written.find('\n') == std::string::npos);
}

}  // namespace sluice
