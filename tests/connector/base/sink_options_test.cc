#include "connector/base/sink_options.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config_loader.h"

// The sink's options from the configuration (connector/base/sink_options.h).

namespace sluice {
namespace {

config loaded(const std::string& extra) {
  const std::string yaml =
      "name: n\nkafka: {bootstrap.servers: \"127.0.0.1:9092\"}\n"
      "topics: [a]\npostgres.dsn: \"postgresql://u@db/r\"\n" +
      extra;
  const load_result r =
      load_config(yaml, [](std::string_view) -> std::optional<std::string> { return {}; });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return *r;
}

}  // namespace

TEST_CASE("errors.retry.max counts retries after the first attempt: 0 is no retry") {
  CHECK(make_retry_policy(loaded("errors.retry.max: 0\n")).statement_attempts == 1);
  CHECK(make_retry_policy(loaded("errors.retry.max: 3\n")).statement_attempts == 4);
  CHECK(make_retry_policy(loaded("")).statement_attempts == 11);  // the default, 10 retries
}

}  // namespace sluice
