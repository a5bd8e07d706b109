#include "connector/config/config_checks.h"

#include <date/tz.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <sstream>
#include <vector>

#include "connector/config/config_table.h"
#include "connector/config/did_you_mean.h"
#include "connector/config/redact.h"
#include "connector/config/topic_regex.h"
#include "core/catalog/table_filter.h"
#include "core/model/zone_text.h"

namespace sluice {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

std::string one_of(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

// A name of the system's IANA time zone database ("Europe/Paris", "Etc/GMT+3", "EST5EDT");
// else why not, with the nearest name when it looks like a typo of one.
std::string zone_name_problem(std::string_view s) {
  try {
    if (date::locate_zone(s) != nullptr) return "";
  } catch (const std::exception&) {
    // not in the database, or no database (tzdata not installed): the words below
  }
  const std::string quoted = "\"" + std::string(s.substr(0, 64)) + (s.size() > 64 ? "…\"" : "\"");
  std::vector<std::string_view> names;
  try {
    for (const date::time_zone& zone : date::get_tzdb().zones)
      names.push_back(zone.name());
  } catch (const std::exception& e) {
    return quoted + " cannot be checked: no time zone database (" + e.what() + "; install tzdata)";
  }
  std::string out = quoted + " is not in the time zone database";
  // Zone names are at most ~32 characters: a longer value is no typo of one (and the search
  // would cost a fuzzer its time).
  if (s.size() <= 64) {
    if (auto near = closest_match(s, names)) out += "; did you mean " + std::string(*near) + "?";
  }
  return out +
         " (expected UTC, an offset such as +02:00, or an IANA zone name such as "
         "Europe/Paris)";
}

}  // namespace

std::vector<std::string> kafka_property_names() {
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (!f) return {};
  rd_kafka_conf_properties_show(f);
  std::fclose(f);
  // A Markdown table: "name | C/P | range | default | importance | description".
  std::vector<std::string> names;
  std::istringstream lines(std::string(text, size));
  std::free(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t bar = line.find(" |");
    if (bar == std::string::npos || bar == 0) continue;
    std::string name = line.substr(0, bar);
    while (!name.empty() && name.back() == ' ')
      name.pop_back();
    if (name.empty() || name.find(' ') != std::string::npos || name == "Property" ||
        name.starts_with("-")) {
      continue;
    }
    names.push_back(std::move(name));
  }
  return names;
}

std::string check_not_empty(std::string_view, std::string_view value) {
  return value.empty() ? "must not be empty" : "";
}

std::string check_kafka_property(std::string_view entry, std::string_view value) {
  if (entry.empty()) return "a librdkafka property needs a name";
  if (const auto* owned = find_owned_kafka_property(entry)) {
    return "sluice sets this librdkafka property itself (" + std::string(owned->reason) +
           "); remove it";
  }
  // librdkafka's own verdict on the name and value, at load time, so that `run` stops with the
  // key's line and column instead of FAILED after it has touched PostgreSQL. Plugins are not
  // set here: setting plugin.library.paths loads the libraries.
  if (entry == "plugin.library.paths") return "";
  const std::unique_ptr<rd_kafka_conf_t, decltype(&rd_kafka_conf_destroy)> conf(
      rd_kafka_conf_new(), &rd_kafka_conf_destroy);
  char why[512] = "";
  const std::string name(entry), text(value);
  const rd_kafka_conf_res_t res =
      rd_kafka_conf_set(conf.get(), name.c_str(), text.c_str(), why, sizeof why);
  if (res == RD_KAFKA_CONF_OK) return "";
  if (res == RD_KAFKA_CONF_UNKNOWN) {
    static const std::vector<std::string> names = kafka_property_names();
    const std::vector<std::string_view> candidates(names.begin(), names.end());
    std::string out = "not a librdkafka property";
    if (auto near = closest_match(entry, candidates)) {
      out += "; did you mean kafka." + std::string(*near) + "?";
    }
    return out;
  }
  std::string said = std::string("librdkafka: ") + why;
  // Its words may quote the value: a secret's is hidden (the check's contract).
  if (is_sensitive_kafka_property(entry) && !text.empty()) {
    const std::string hidden[] = {text};
    said = redact_secrets(said, hidden);
  }
  return said;
}

std::string check_topic_name(std::string_view, std::string_view value) {
  if (value.empty()) return "a topic name must not be empty";
  if (value.size() > 249) return "a topic name is at most 249 characters";
  if (value == "." || value == "..") return "\".\" and \"..\" are not topic names";
  for (char c : value) {
    if (!is_alpha(c) && !is_digit(c) && c != '.' && c != '_' && c != '-') {
      return "a topic name holds only letters, digits, '.', '_' and '-'";
    }
  }
  return "";
}

std::string check_optional_topic_name(std::string_view entry, std::string_view value) {
  return value.empty() ? "" : check_topic_name(entry, value);
}

std::string check_topic_regex(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  const std::string problem = topic_regex::problem(std::string(value));
  return problem.empty()
             ? ""
             : "is not a POSIX extended regular expression sluice takes (" + problem + ")";
}

std::string check_table_pattern(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (table_filter::pattern_error(std::string(value))) {
    return "is not a valid regular expression (ECMAScript)";
  }
  return "";
}

std::string check_registry_url(std::string_view, std::string_view value) {
  if (value.empty()) return "";
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (!value.starts_with(scheme)) continue;
    const std::string_view rest = value.substr(scheme.size());
    if (rest.empty() || rest.front() == '/' || rest.front() == '?' || rest.front() == '#')
      return "names no host";
    return "";
  }
  return "must start with http:// or https://";
}

std::string check_identifier(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.size() > 63) return "is longer than PostgreSQL's 63-byte identifier limit";
  if (value.find('\0') != std::string_view::npos) return "contains a NUL byte";
  return "";
}

std::string check_mariadb_identifier(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  const auto code_points = std::count_if(value.begin(), value.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a continuation byte
  });
  if (code_points > 64) return "is longer than MariaDB's 64-character identifier limit";
  if (value.find('\0') != std::string_view::npos) return "contains a NUL byte";
  return "";
}

std::string check_routing_format(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty (the default is ${schema}.${table})";
  return "";
}

std::string check_json_pointer(std::string_view, std::string_view value) {
  if (value.empty() || value[0] != '/') {
    return "a JSON pointer starts with '/', e.g. \"/source_metadata/scn\"";
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '~' &&
        (i + 1 == value.size() || (value[i + 1] != '0' && value[i + 1] != '1'))) {
      return "in a JSON pointer '~' is written ~0 and '/' inside a name ~1";
    }
  }
  return "";
}

std::string check_timezone(std::string_view, std::string_view value) {
  switch (classify_zone_text(value).what) {
    case zone_text::kind::utc:
    case zone_text::kind::offset:
      return "";
    case zone_text::kind::invalid:
      return "expected UTC, an offset such as +02:00 (at most 18:00 from UTC), or an IANA zone "
             "name such as Europe/Paris";
    case zone_text::kind::name:
      break;
  }
  return zone_name_problem(value);
}

std::string check_listen_address(std::string_view, std::string_view value) {
  if (value.empty()) return "";
  const std::string_view expected =
      "expected host:port (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464), or \"\" to disable";
  const std::size_t colon = value.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::string(expected);
  const std::string_view host = value.substr(0, colon);
  const std::string_view port = value.substr(colon + 1);
  if (port.empty() || port.size() > 5 || !all_of(port, is_digit)) return std::string(expected);
  const int number = std::stoi(std::string(port));
  if (number < 1 || number > 65535) return "the port must be between 1 and 65535";
  if (host.front() == '[') {
    if (host.back() != ']' || host.size() < 3) return std::string(expected);
    return "";
  }
  for (char c : host) {
    if (!is_alpha(c) && !is_digit(c) && c != '.' && c != '-' && c != '_') {
      return std::string(expected);
    }
  }
  return "";
}

std::string check_column_type(std::string_view entry, std::string_view value) {
  if (entry.empty()) return "a column name must not be empty";
  if (value.empty()) return "a column type must not be empty";
  for (char c : value) {
    if (!is_alpha(c) && !is_digit(c) &&
        std::string_view(" _,.()[]\"").find(c) == std::string_view::npos) {
      return "is not a PostgreSQL type name (letters, digits, spaces and _ , . ( ) [ ] \")";
    }
  }
  return "";
}

std::string check_goldengate_field(std::string_view entry, std::string_view value) {
  const auto names = goldengate_field_names();
  if (std::find(names.begin(), names.end(), entry) == names.end()) {
    return "not a GoldenGate field sluice reads (one of " + one_of(names) + ")";
  }
  return value.empty() ? "a field name must not be empty" : "";
}

std::string check_goldengate_op(std::string_view entry, std::string_view value) {
  const auto names = goldengate_op_names();
  if (std::find(names.begin(), names.end(), entry) == names.end()) {
    return "not a GoldenGate op (one of " + one_of(names) + ")";
  }
  return value.empty() ? "an op string must not be empty" : "";
}

}  // namespace sluice
