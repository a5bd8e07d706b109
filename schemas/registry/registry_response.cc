#include "schemas/registry/registry_response.h"

#include <optional>

#include <simdjson.h>

namespace sluice {
namespace {

constexpr std::int64_t subject_or_schema_not_found = 40403;
constexpr std::size_t quoted_body_bytes = 200;

struct parsed_body {
  std::optional<std::string> schema;
  std::string type;
  std::optional<std::int64_t> error_code;
  std::string message;
};

// The fields sluice reads from a registry's JSON answer; nullopt when it is not a JSON object.
std::optional<parsed_body> parse_body(std::string_view body) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(body);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(object)) return std::nullopt;
  parsed_body out;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return std::nullopt;
    std::string_view text;
    std::int64_t number = 0;
    if (key == "schema") {
      if (field.value().get_string().get(text)) return std::nullopt;
      out.schema = std::string(text);
    } else if (key == "schemaType") {
      if (field.value().get_string().get(text)) return std::nullopt;
      out.type = std::string(text);
    } else if (key == "error_code") {
      if (field.value().get_int64().get(number)) return std::nullopt;
      out.error_code = number;
    } else if (key == "message") {
      if (!field.value().get_string().get(text)) out.message = std::string(text);
    }
  }
  return out;
}

std::string quoted(std::string_view body) {
  if (body.size() > quoted_body_bytes) return std::string(body.substr(0, quoted_body_bytes)) + "…";
  return std::string(body);
}

// The registry's own message if it gave one, else the body; bounded either way: it goes into a
// DEGRADED or FAILED reason, /status and every log line that repeats it.
std::string what_it_said(const std::optional<parsed_body>& parsed, std::string_view body) {
  if (parsed && !parsed->message.empty()) return quoted(std::string_view(parsed->message));
  return quoted(body);
}

}  // namespace

registry_answer classify_registry_response(std::string_view url, schema_id id, long status,
                                           std::string_view body,
                                           std::string_view transport_error) {
  const std::string id_text = std::to_string(id.value());
  const std::string where = "the schema registry at " + std::string(url);
  if (status == 0) {
    return {registry_outcome::unreachable, nullptr,
            where + " is unreachable: " + std::string(transport_error)};
  }
  const std::string answered = where + " answered HTTP " + std::to_string(status);
  const auto parsed = parse_body(body);
  if (status == 200) {
    if (!parsed || !parsed->schema) {
      return {registry_outcome::refused, nullptr,
              answered + " without a schema for id " + id_text +
                  " (is the URL a Confluent-compatible registry's base URL?): " + quoted(body)};
    }
    auto found = std::make_shared<registered_schema>(
        registered_schema{id, parsed->type.empty() ? "AVRO" : parsed->type, *parsed->schema});
    return {registry_outcome::found, std::move(found), {}};
  }
  if (status == 404 && parsed && parsed->error_code == subject_or_schema_not_found) {
    return {registry_outcome::not_found, nullptr,
            "schema id " + id_text + " is not in the registry at " + std::string(url)};
  }
  if (status == 401 || status == 403) {
    return {
        registry_outcome::refused, nullptr,
        answered + " (check schema.registry.basic.auth.user.info): " + what_it_said(parsed, body)};
  }
  if (status == 408 || status == 429 || status >= 500) {
    return {registry_outcome::unreachable, nullptr, answered + ": " + what_it_said(parsed, body)};
  }
  return {registry_outcome::refused, nullptr,
          answered + " for schema id " + id_text +
              " (is the URL a Confluent-compatible registry's base URL?): " +
              what_it_said(parsed, body)};
}

}  // namespace sluice
