#include <doctest/doctest.h>

#include <string>

#include "connector/config/config.h"
#include "connector/config/config_loader.h"
#include "connector/registry/schema_registry_client.h"

using namespace sluice;

namespace {

const std::string minimal = R"yaml(name: orders-replica
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc.orders]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
)yaml";

load_result load(const std::string& extra) {
  return load_config(
      minimal + extra, [](std::string_view) { return std::nullopt; }, "sluice.yaml");
}

}  // namespace

TEST_CASE("schema registry keys load, flat or nested, with a 10 s default timeout") {
  const load_result r = load(R"yaml(schema:
  registry:
    url: https://registry:8081
    ssl.ca.location: /etc/ca.pem
schema.registry.ssl.certificate.location: /etc/client.pem
schema.registry.ssl.key.location: /etc/client.key
)yaml");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const auto o = registry_client_options(r->schema_registry);
  CHECK(o.url == "https://registry:8081");
  CHECK(o.http.ca_file == "/etc/ca.pem");
  CHECK(o.http.certificate_file == "/etc/client.pem");
  CHECK(o.http.key_file == "/etc/client.key");
  CHECK(o.http.timeout == std::chrono::milliseconds(10'000));
  CHECK(o.http.user_info.empty());
}

TEST_CASE("Kafka Connect's registry key names are aliases the sluice names win over") {
  const load_result alias = load(
      "value.converter.schema.registry.url: http://v:8081\n"
      "key.converter.schema.registry.url: http://k:8081\n"
      "basic.auth.user.info: \"u:alias\"\n");
  REQUIRE_MESSAGE(alias.ok(), alias.error_text());
  CHECK(alias->schema_registry.effective_url() == "http://v:8081");
  CHECK(alias->schema_registry.effective_user_info() == "u:alias");

  const load_result both = load(
      "key.converter.schema.registry.url: http://k:8081\n"
      "schema.registry.url: http://s:8081\n"
      "basic.auth.user.info: \"u:alias\"\n"
      "schema.registry.basic.auth.user.info: \"u:own\"\n");
  REQUIRE_MESSAGE(both.ok(), both.error_text());
  CHECK(both->schema_registry.effective_url() == "http://s:8081");
  CHECK(both->schema_registry.effective_user_info() == "u:own");
}

TEST_CASE("the registry's basic auth user info is a secret describe() never prints") {
  const load_result r = load(
      "schema.registry.url: http://s:8081\n"
      "schema.registry.basic.auth.user.info: \"sr-user:hunter2\"\n"
      "basic.auth.user.info: \"other:hunter3\"\n"
      "schema.registry.timeout.ms: 2500\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const std::string text = describe(*r);
  CHECK(text.find("hunter2") == std::string::npos);
  CHECK(text.find("hunter3") == std::string::npos);
  CHECK(text.find("schema.registry.basic.auth.user.info: \"***\"") != std::string::npos);
  CHECK(text.find("schema.registry.timeout.ms: 2500") != std::string::npos);
  CHECK(r->schema_registry.timeout == std::chrono::milliseconds(2500));
}
