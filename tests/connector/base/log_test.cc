#include "connector/base/log.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace sluice;

namespace {

// What the process writes to stderr while body runs.
template <typename F>
std::string capture_stderr(F&& body) {
  char path[] = "/tmp/sluice-log-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(fd, 2);
  body();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  return text.str();
}

}  // namespace

TEST_CASE("a log line never shows a configured secret, in text or in JSON") {
  // A secret with a character JSON escapes: redacted before the escaping hides it.
  log::hide({"hunter2", "pa\"ss"});
  for (const bool json : {false, true}) {
    CAPTURE(json);
    log::configure(log_severity::info, json);
    const std::string out = capture_stderr([] {
      SLUICE_LOG(error, "pipeline", "login as sluice:hunter2 failed; then pa\"ss, then hunter2");
    });
    CAPTURE(out);
    CHECK(out.find("hunter2") == std::string::npos);
    CHECK(out.find("pa") == std::string::npos);
    CHECK(out.find("login as sluice:*** failed; then ***, then ***") != std::string::npos);
  }
  log::configure(log_severity::info, false);
  log::hide({});
  const std::string out = capture_stderr([] { SLUICE_LOG(info, "pipeline", "hunter2"); });
  CHECK(out.find("pipeline: hunter2") != std::string::npos);
}

TEST_CASE("a text log line is one line: control characters in a message are escaped") {
  log::configure(log_severity::info, false);
  const std::string out = capture_stderr([] {
    SLUICE_LOG(
        warn, "prepare",
        "reason: bad value \"x\ny\"\n2026-01-01T00:00:00.000Z ERROR sluice: forged\t\x1b[2J\n");
  });
  CAPTURE(out);
  CHECK(out.find('\n') == out.size() - 1);  // one line, its own newline last
  CHECK(out.find(
            "bad value \"x\\ny\"\\n2026-01-01T00:00:00.000Z ERROR sluice: forged\\t\\x1b[2J\n") !=
        std::string::npos);
}
