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

TEST_CASE("Kafka Connect's registry key names stand in for sluice's") {
  const load_result value = load(
      "value.converter.schema.registry.url: http://v:8081\n"
      "basic.auth.user.info: \"u:alias\"\n");
  REQUIRE_MESSAGE(value.ok(), value.error_text());
  CHECK(value->schema_registry.effective_url() == "http://v:8081");
  CHECK(value->schema_registry.effective_user_info() == "u:alias");

  const load_result key = load("key.converter.schema.registry.url: http://k:8081\n");
  REQUIRE_MESSAGE(key.ok(), key.error_text());
  CHECK(key->schema_registry.effective_url() == "http://k:8081");
  CHECK(key->schema_registry.effective_user_info().empty());
}

TEST_CASE("the registry's basic auth user info is a secret describe() never prints") {
  const load_result r = load(
      "schema.registry.url: http://s:8081\n"
      "schema.registry.basic.auth.user.info: \"sr-user:hunter2\"\n"
      "basic.auth.user.info: \"sr-user:hunter2\"\n"
      "schema.registry.timeout.ms: 2500\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const std::string text = describe(*r);
  CHECK(text.find("hunter2") == std::string::npos);
  CHECK(text.find("basic.auth.user.info: \"***\"") != std::string::npos);
  CHECK(text.find("schema.registry.basic.auth.user.info: \"***\"") != std::string::npos);
  CHECK(text.find("schema.registry.timeout.ms: 2500") != std::string::npos);
  CHECK(r->schema_registry.timeout == std::chrono::milliseconds(2500));
}

TEST_CASE("two names of one registry setting that disagree are an error, never a silent pick") {
  const load_result r = load(
      "schema.registry.url: http://s:8081\n"
      "value.converter.schema.registry.url: http://other:8081\n"
      "schema.registry.basic.auth.user.info: \"u:one\"\n"
      "basic.auth.user.info: \"u:two\"\n");
  REQUIRE_FALSE(r.ok());
  const std::string text = r.error_text();
  CHECK(text.find("value.converter.schema.registry.url is another name for "
                  "schema.registry.url and differs from it") != std::string::npos);
  CHECK(text.find("basic.auth.user.info is another name for") != std::string::npos);
  CHECK(text.find("u:one") == std::string::npos);
  CHECK(text.find("u:two") == std::string::npos);
  // The same value under both names is fine (a Connect configuration pasted beside sluice's).
  CHECK(load("schema.registry.url: http://s:8081\n"
             "value.converter.schema.registry.url: http://s:8081\n")
            .ok());
}

TEST_CASE("a registry client certificate without its key is an error") {
  const load_result r = load("schema.registry.ssl.certificate.location: /etc/client.pem\n");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error_text().find("schema.registry.ssl.key.location") != std::string::npos);
}

TEST_CASE("describe() shows registry URLs, under every name, with their user info hidden") {
  const load_result r = load(
      "schema.registry.url: https://svc:pa/ss@reg:8081/x\n"
      "value.converter.schema.registry.url: https://svc:pa/ss@reg:8081/x\n"
      "key.converter.schema.registry.url: https://svc:pa/ss@reg:8081/x\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const std::string text = describe(*r);
  CHECK(text.find("pa/ss") == std::string::npos);
  CHECK(text.find("svc") == std::string::npos);
  CHECK(text.find("\nschema.registry.url: https://***@reg:8081/x\n") != std::string::npos);
  CHECK(text.find("value.converter.schema.registry.url: https://***@reg:8081/x") !=
        std::string::npos);
  CHECK(text.find("key.converter.schema.registry.url: https://***@reg:8081/x") !=
        std::string::npos);
}
