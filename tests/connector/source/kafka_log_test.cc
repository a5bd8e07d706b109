#include "connector/source/kafka_log.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "connector/base/log.h"
#include "connector/source/kafka_handles.h"

using namespace sluice;

namespace {

// What the process writes to stderr while body runs.
template <typename F>
std::string capture_stderr(F&& body) {
  char path[] = "/tmp/sluice-kafka-log-XXXXXX";
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

TEST_CASE("librdkafka's log lines come out through sluice's logger, as JSON when asked") {
  log::configure(log_severity::info, /*json=*/true);
  const std::string out = capture_stderr([] {
    char err[512];
    kafka_conf conf(rd_kafka_conf_new());
    // A deprecated property: librdkafka warns about it (CONFWARN) when the client is made.
    REQUIRE(rd_kafka_conf_set(conf.get(), "socket.blocking.max.ms", "100", err, sizeof err) ==
            RD_KAFKA_CONF_OK);
    route_kafka_logs(conf.get());
    kafka_handle rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
    REQUIRE(rk);
    conf.release();
  });
  log::configure(log_severity::info, /*json=*/false);
  CAPTURE(out);
  CHECK(out.find("CONFWARN") != std::string::npos);
  CHECK(out.find("socket.blocking.max.ms") != std::string::npos);
  CHECK(out.find("%4|") == std::string::npos);  // librdkafka's own format
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK(line.rfind("{", 0) == 0);
    if (line.find("socket.blocking.max.ms") != std::string::npos) {
      CHECK(line.find(R"("component":"kafka")") != std::string::npos);
      CHECK(line.find(R"("level":"warn")") != std::string::npos);  // librdkafka's level 4
    }
  }
}
