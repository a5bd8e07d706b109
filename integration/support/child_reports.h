#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sluice::testing {

// Sanitizer reports of `sluice` child processes (a build with SLUICE_SANITIZE). A child that
// hits ASan, UBSan or LSan writes a report to its stderr and exits (halt_on_error), and the
// test that started it may never look at its exit code: a kill -9 scenario, a child reaped in
// a destructor. So sluice_process and run_sluice scan each child's output when it is reaped
// (check_child_output): a report is printed to stderr, counted, and handed to the handler.
// The end-to-end programs' main (e2e_main.cc) makes the handler fail the running test case
// and the program fail when any report was seen.
//
// Threading: call from the test's thread.

// The report in a child's output, from its first line to at most 60 lines on; "" if none.
std::string sanitizer_report(std::string_view output);

// Scans `output` of the child `who` (e.g. "sluice run pid 123, log <path>") for a report.
void check_child_output(const std::string& who, std::string_view output);

// How many children reported, in this process so far.
size_t child_sanitizer_reports();

using child_report_handler = void (*)(const std::string& report);
void set_child_report_handler(child_report_handler handler);

}  // namespace sluice::testing
