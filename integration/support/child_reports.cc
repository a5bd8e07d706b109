#include "integration/support/child_reports.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace sluice::testing {
namespace {

size_t reports = 0;
child_report_handler handler = nullptr;

}  // namespace

std::string sanitizer_report(std::string_view output) {
  // What each runtime prints first: "==123==ERROR: AddressSanitizer: heap-use-after-free",
  // "==123==ERROR: LeakSanitizer: detected memory leaks", "x.cc:12:5: runtime error: ...",
  // "WARNING: ThreadSanitizer: data race (pid=123)".
  constexpr std::array<std::string_view, 5> markers{
      "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
      ": runtime error: ", "SUMMARY: UndefinedBehaviorSanitizer", "WARNING: ThreadSanitizer"};
  size_t at = std::string_view::npos;
  for (std::string_view m : markers)
    at = std::min(at, output.find(m));
  if (at == std::string_view::npos) return {};
  const size_t line_start = output.rfind('\n', at);
  const size_t begin = line_start == std::string_view::npos ? 0 : line_start + 1;
  size_t end = begin;
  for (int lines = 0; lines < 60; ++lines) {
    const size_t eol = output.find('\n', end);
    if (eol == std::string_view::npos) {
      end = output.size();
      break;
    }
    end = eol + 1;
  }
  return std::string(output.substr(begin, end - begin));
}

void check_child_output(const std::string& who, std::string_view output) {
  const std::string report = sanitizer_report(output);
  if (report.empty()) return;
  ++reports;
  const std::string text = "sanitizer report from " + who + ":\n" + report;
  std::fprintf(stderr, "\n==== %s\n====\n", text.c_str());
  if (handler != nullptr) handler(text);
}

size_t child_sanitizer_reports() {
  return reports;
}

void set_child_report_handler(child_report_handler h) {
  handler = h;
}

}  // namespace sluice::testing
