#include "connector/config/config_reference.h"

#include <chrono>

#include "connector/config/config_table.h"
#include "connector/config/config_value.h"

namespace sluice {
namespace {

// Text for a Markdown table cell: '|' would end the cell, and outside `code` spans '<' and
// '>' would read as HTML (tables.<source>.target).
std::string cell(std::string_view s) {
  std::string out;
  bool in_code = false;
  for (char c : s) {
    if (c == '`') in_code = !in_code;
    if (c == '|') {
      out += "\\|";
    } else if (c == '<' && !in_code) {
      out += "&lt;";
    } else if (c == '>' && !in_code) {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string code(std::string_view s) {
  return cell("`" + std::string(s) + "`");
}

std::string type_of(const config_key& key) {
  if (key.type != value_type::enumeration) return std::string(to_string(key.type));
  std::string out;
  for (auto v : key.allowed)
    out += (out.empty() ? "" : " \\| ") + code(v);
  return out;
}

std::string default_of(const config_key& key) {
  if (key.required) return "(required)";
  if (!key.default_value.empty()) return code(key.default_value);
  switch (key.type) {
    case value_type::string_list:
      return code("[]");
    case value_type::string_map:
      return code("{}");
    case value_type::enumeration:
      return "(unset)";
    default:
      return code("\"\"");
  }
}

std::string bounds_of(const config_key& key) {
  switch (key.type) {
    case value_type::integer:
      return std::to_string(key.min) + " – " + std::to_string(key.max);
    case value_type::size:
      return format_size(key.min) + " – " + format_size(key.max);
    case value_type::duration:
      return format_duration(std::chrono::milliseconds(key.min)) + " – " +
             format_duration(std::chrono::milliseconds(key.max));
    default:
      return "";
  }
}

constexpr std::string_view introduction = R"(# sluice configuration reference

Generated from sluice's key table (`connector/config/config_table.cc`) by
`sluice config-reference`; do not edit by hand.

The configuration is one YAML file (`sluice run -c sluice.yaml`). Every problem in it is
reported at start-up, all at once, each with its line and column.

- **Keys.** Nesting and dots are interchangeable: `postgres: {dsn: ...}` and
  `postgres.dsn: ...` name the same key. A `<source>` or `<topic>` segment is one YAML map key
  taken whole, dots included (`tables: {"ROOT.SAMPLE": {target: root.sample}}`). Unknown keys
  and keys given twice are errors.
- **Environment.** In every scalar value, `${NAME}` is replaced by the environment variable
  NAME (an error if it is not set) and `${NAME:-fallback}` by NAME, or by fallback when NAME is
  unset or empty; `$${` writes a literal `${`. Map keys are never substituted.
- **Files.** `${file:/run/secrets/pg_password}` is replaced by the file's content, less one
  trailing newline (`\n` or `\r\n`); the path is absolute and runs up to the `}`. A file
  that cannot be read is an error at the value's line and column. Anything read this way is a
  secret, whatever the key (see [security.md](security.md)).
  `${topic}`, `${database}`, `${schema}` and `${table}` are not variables: they are the
  routing placeholders of `table.name.format` and `tables.<source>.target`, and an error in
  any other key.
- **Types.** A *duration* is a number and a unit (`ms`, `s`, `m`, `h`, `d`), or a sum of
  such (`1h30m`). A *size* is a byte count, or a number and a unit (`KiB`, `MiB`, `GiB`). A
  *boolean* is `true` or `false`. A *list of strings* is a YAML list or one comma-separated
  string (`topics: ${TOPICS}`). An empty value (`key:` with nothing after it) is an error for
  a scalar key: write `""` for an empty string, or leave the key out for its default.
- **Secrets.** Secret values (the password of `postgres.dsn` or `mariadb.dsn`, sensitive
  librdkafka properties) are redacted (`***`) wherever sluice prints them: `sluice check`,
  logs, `/status`, error messages; so is what any `${file:}` read, and what `${NAME}` gave a
  sensitive librdkafka property, wherever it appears.
)";

}  // namespace

std::string config_reference_markdown() {
  std::string out(introduction);
  out += "\n## Keys\n\n";
  out += "| Key | Type | Default | Bounds | Description |\n";
  out += "|---|---|---|---|---|\n";
  for (const auto& key : config_keys()) {
    std::string description;
    if (key.required) description += "**Required.** ";
    if (key.secret) description += "**Secret.** ";
    description += cell(key.description);
    out += "| " + code(key.name) + " | " + type_of(key) + " | " + default_of(key) + " | " +
           bounds_of(key) + " | " + description + " |\n";
  }
  out += "\n## librdkafka properties sluice owns\n\n";
  out +=
      "`kafka:` is passed to librdkafka as given, except these, which sluice sets itself and "
      "rejects in the file:\n\n";
  out += "| Property | Why |\n|---|---|\n";
  for (const auto& p : owned_kafka_properties()) {
    out += "| " + code(p.name) + " | " + cell(p.reason) + " |\n";
  }
  return out;
}

}  // namespace sluice
