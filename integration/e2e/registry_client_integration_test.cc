// The Schema Registry client against a real Confluent-compatible registry (Apicurio Registry,
// services/registry.sh) and PostgreSQL: fetch by id, an unknown id, an outage waited out in
// DEGRADED, a stop request ending the wait, schemas served from the state table while the
// registry is down.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <pqxx/connection>
#include <pqxx/transaction>

#include "connector/registry/schema_registry_client.h"
#include "connector/registry/target_schema_store.h"
#include "integration/support/registry_admin.h"
#include "integration/support/services.h"
#include "sinks/postgres/session/state_schema.h"
#include "sinks/postgres/state/pg_schema_store.h"

using namespace sluice;
using namespace sluice::testing;
using namespace std::chrono_literals;

namespace {

void registry_service(const std::string& verb) {
  run_shell("\"$SLUICE_SERVICES_DIR/registry.sh\" " + verb + " 2>&1");
}

struct degraded_log {
  std::mutex mutex;
  std::vector<std::string> reasons;
  void operator()(const std::string& r) {
    std::lock_guard lock(mutex);
    reasons.push_back(r);
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mutex);
    return reasons;
  }
};

schema_registry_client_options options() {
  schema_registry_client_options o;
  o.url = registry_url();
  o.http.timeout = 2000ms;
  o.backoff_initial = 50ms;
  o.backoff_max = 500ms;
  return o;
}

const std::string state = "sluice_registry_test";
const std::string orders_text =
    R"({"type":"record","name":"orders","fields":[{"name":"id","type":"long"}]})";

}  // namespace

TEST_CASE(
    "a schema registered in a real registry is fetched by id, an unknown id is an error,"
    " and a fetched schema outlives a registry outage through the state table") {
  {
    pqxx::connection c(postgres_dsn());
    pqxx::work drop(c);
    drop.exec("DROP SCHEMA IF EXISTS " + state + " CASCADE");
    drop.commit();
    CHECK(state_schema(state).migrate(c) == 0);
  }
  const std::string url = registry_url();
  const schema_id id = register_schema(unique_name("orders-value"), orders_text);
  session_options session;
  session.dsn = postgres_dsn();
  session.state_schema = state;
  auto store = std::make_shared<target_schema_store>(std::make_unique<pg_schema_store>(session));

  schema_registry_client client(options(), {}, store);
  auto fetched = client.schema(id);
  REQUIRE_MESSAGE(fetched.ok(), fetched.err().message);
  CHECK((*fetched)->text == orders_text);
  CHECK((*fetched)->type == "AVRO");
  CHECK(query("SELECT schema FROM " + state + ".registry_schemas WHERE registry_url = '" + url +
              "' AND id = " + std::to_string(id.value())) == std::vector<row>{{orders_text}});

  auto unknown = client.schema(schema_id(987654));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.err().code == error_code::unsupported);
  CHECK(unknown.err().message == "schema id 987654 is not in the registry at " + url);

  registry_service("halt");
  // A restart: nothing in memory, the registry down, the schema still known.
  schema_registry_hooks never_wait;
  never_wait.stop_requested = [] { return true; };
  schema_registry_client restarted(options(), never_wait, store);
  auto from_state = restarted.schema(id);
  REQUIRE(from_state.ok());
  CHECK((*from_state)->text == orders_text);
  // What it never fetched, it must wait for: here the stop request ends the wait at once.
  CHECK_THROWS_AS(restarted.schema(schema_id(id.value() + 1)), schema_source_stopped);

  // One halt serves both waits below (a registry start costs ~8 s): sequential blocks, not
  // SUBCASEs, which would run the set-up, halt included, once per subcase.
  {
    INFO("a stop request ends a wait for the registry promptly");
    std::atomic<bool> stop{false};
    degraded_log degraded;
    schema_registry_hooks hooks;
    hooks.degraded = std::ref(degraded);
    hooks.stop_requested = [&] { return stop.load(); };
    // The registry may answer "unknown" before the schema is registered again below: that
    // answer is not remembered here, so that the second call asks again.
    schema_registry_client_options forgetful = options();
    forgetful.unknown_id_ttl = 0ms;
    schema_registry_client waiting(forgetful, hooks);
    auto call = std::async(std::launch::async, [&] { waiting.schema(id); });
    REQUIRE(wait_until([&] { return !degraded.seen().empty(); }, 10s));
    CHECK(degraded.seen().front().find("the schema registry at " + url + " is unreachable") == 0);
    stop = true;
    REQUIRE(call.wait_for(2s) == std::future_status::ready);
    CHECK_THROWS_AS(call.get(), schema_source_stopped);
    CHECK(degraded.seen().back().empty());
  }

  {
    INFO("an unreachable registry is waited out in DEGRADED and answers once it is back");
    degraded_log degraded;
    schema_registry_hooks hooks;
    hooks.degraded = std::ref(degraded);
    // The registry may answer "unknown" before the schema is registered again below: that
    // answer is not remembered here, so that the second call asks again.
    schema_registry_client_options forgetful = options();
    forgetful.unknown_id_ttl = 0ms;
    schema_registry_client waiting(forgetful, hooks);
    auto call = std::async(std::launch::async, [&] { return waiting.schema(id); });
    REQUIRE(wait_until([&] { return !degraded.seen().empty(); }, 10s));
    CHECK(call.wait_for(1s) == std::future_status::timeout);  // still waiting, not failed
    registry_service("resume");
    // Apicurio's storage is in memory: ids start again from 1. Tests that ran before this one
    // on the same registry took the ids below ours: distinct fillers take them again, then
    // the schema takes its first id again.
    for (int32_t filler = 1; filler < id.value(); ++filler) {
      const std::string text =
          R"({"type":"record","name":"filler)" + std::to_string(filler) + R"(","fields":[]})";
      REQUIRE(register_schema(unique_name("filler-value"), text) == schema_id(filler));
    }
    CHECK(register_schema(unique_name("orders-value"), orders_text) == id);
    REQUIRE(call.wait_for(30s) == std::future_status::ready);
    auto answered = call.get();
    // The registry may have answered between its start and the registration: "not in the
    // registry" is then the right answer, and the next call finds it.
    if (!answered.ok()) {
      CHECK(answered.err().message.find("is not in the registry") != std::string::npos);
      answered = waiting.schema(id);
    }
    REQUIRE(answered.ok());
    CHECK((*answered)->text == orders_text);
    CHECK(degraded.seen().back().empty());  // RUNNING again
  }
}
