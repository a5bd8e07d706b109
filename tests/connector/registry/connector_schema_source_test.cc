#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "connector/base/connector_state.h"
#include "connector/config/config.h"
#include "connector/registry/connector_schema_source.h"

using namespace sluice;
using namespace std::chrono_literals;

TEST_CASE("without a registry URL the connector has no schema source") {
  state_holder state;
  std::atomic<bool> stop{false};
  CHECK(make_connector_schema_source(config_with_defaults(), state, stop) == nullptr);
}

TEST_CASE("an unreachable registry makes the connector DEGRADED until its wait ends") {
  config c = config_with_defaults();
  c.schema_registry.value_converter_url = "http://127.0.0.1:1";  // Connect's name works too
  c.schema_registry.timeout = 500ms;
  state_holder state;
  state.set(connector_state::running);
  std::atomic<bool> stop{false};
  auto source = make_connector_schema_source(c, state, stop, /*persist=*/false);
  REQUIRE(source != nullptr);
  std::atomic<bool> seen_degraded{false};
  std::thread watcher([&] {
    for (int i = 0; i < 500 && !seen_degraded; ++i) {
      if (state.get() == connector_state::degraded &&
          state.degraded().first.find("schema registry") != std::string::npos) {
        seen_degraded = true;
      }
      std::this_thread::sleep_for(2ms);
    }
    stop = true;
  });
  CHECK_THROWS_AS(source->schema(schema_id(1)), schema_source_stopped);
  watcher.join();
  CHECK(seen_degraded);
  CHECK(state.get() == connector_state::running);
  CHECK(state.degraded().first.empty());
}
