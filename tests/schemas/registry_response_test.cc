#include <doctest/doctest.h>

#include <string>

#include "schemas/registry/registry_response.h"

using namespace sluice;

namespace {
constexpr std::string_view url = "http://registry:8081";

registry_answer classify(long status, std::string_view body, std::string_view transport = {}) {
  return classify_registry_response(url, schema_id(7), status, body, transport);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("a registry's 200 answer gives the schema text, unescaped, and its type") {
  const auto answer = classify(
      200,
      R"({"schema":"{\"type\":\"record\",\"name\":\"r\"}","schemaType":"AVRO","references":[]})");
  REQUIRE(answer.outcome == registry_outcome::found);
  CHECK(answer.schema->id == schema_id(7));
  CHECK(answer.schema->text == R"({"type":"record","name":"r"})");
  CHECK(answer.schema->type == "AVRO");
}

TEST_CASE("a registry answer without schemaType is Avro, as in Confluent's registry") {
  const auto answer = classify(200, R"({"schema":"\"string\""})");
  REQUIRE(answer.outcome == registry_outcome::found);
  CHECK(answer.schema->type == "AVRO");
  CHECK(answer.schema->text == R"("string")");
}

TEST_CASE("404 with error code 40403 says the schema id is not in the registry at the URL") {
  const auto answer = classify(404, R"({"error_code":40403,"message":"Schema 7 not found"})");
  CHECK(answer.outcome == registry_outcome::not_found);
  CHECK(answer.reason == "schema id 7 is not in the registry at http://registry:8081");
}

TEST_CASE("a 404 that is not the registry's 40403 is a wrong URL, not an unknown id") {
  // Otherwise a base URL missing its path (/apis/ccompat/v7) would dead-letter every message.
  const auto answer = classify(404, "<html>Not Found</html>");
  CHECK(answer.outcome == registry_outcome::refused);
  CHECK(contains(answer.reason, "HTTP 404"));
  CHECK(contains(answer.reason, "base URL"));
}

TEST_CASE("401 and 403 are a configuration error naming the credentials key") {
  for (long status : {401L, 403L}) {
    const auto answer = classify(status, R"({"error_code":40101,"message":"Unauthorized"})");
    CHECK(answer.outcome == registry_outcome::refused);
    CHECK(contains(answer.reason, "basic.auth.user.info"));
    CHECK(contains(answer.reason, "Unauthorized"));
  }
}

TEST_CASE("no answer, a timeout, 408, 429 and 5xx are waited out") {
  CHECK(classify(0, "", "Connection refused").outcome == registry_outcome::unreachable);
  CHECK(contains(classify(0, "", "Connection refused").reason, "unreachable: Connection refused"));
  for (long status : {408L, 429L, 500L, 502L, 503L, 504L}) {
    CHECK(classify(status, R"({"error_code":50001,"message":"store down"})").outcome ==
          registry_outcome::unreachable);
  }
  CHECK(contains(classify(503, R"({"error_code":50001,"message":"store down"})").reason,
                 "store down"));
}

TEST_CASE("a 200 answer that is not a registry's is refused, quoting a bounded part of it") {
  const std::string page = "<html>" + std::string(1000, 'x') + "</html>";
  const auto answer = classify(200, page);
  CHECK(answer.outcome == registry_outcome::refused);
  CHECK(answer.reason.size() < 500);
  CHECK(classify(200, R"({"schema":42})").outcome == registry_outcome::refused);
  CHECK(classify(200, R"({"id":7})").outcome == registry_outcome::refused);
}

TEST_CASE("a registry's long message is quoted bounded in the reason") {
  const std::string body =
      R"({"error_code":50001,"message":")" + std::string(100'000, 'm') + R"("})";
  for (long status : {503L, 401L, 400L}) {
    const auto answer = classify(status, body);
    CHECK(answer.reason.size() < 500);
    CHECK(contains(answer.reason, std::string(200, 'm') + "…"));
  }
}
