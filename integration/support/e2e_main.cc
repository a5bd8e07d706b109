// main() of the end-to-end and fault programs: doctest's, plus the check that no `sluice`
// child reported a sanitizer finding (child_reports.h). A report fails the test case that was
// running when the child was reaped, and the program, even if no test case was running.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "integration/support/child_reports.h"

int main(int argc, char** argv) {
  sluice::testing::set_child_report_handler([](const std::string& report) {
    if (doctest::is_running_in_test) FAIL_CHECK(report);
  });
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit()) return rc;
  if (rc == 0 && sluice::testing::child_sanitizer_reports() > 0) return 1;
  return rc;
}
