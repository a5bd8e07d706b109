#include "connector/config/config_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "connector/config/config_table.h"
#include "connector/config/config_value.h"
#include "connector/config/config_walker.h"
#include "connector/config/redact.h"
#include "connector/config/topic_regex.h"
#include "connector/config/transform_checks.h"
#include "connector/config/transform_types.h"
#include "connector/config/value_reader.h"
#include "connector/config/yaml_documents.h"

namespace sluice {
namespace {

config_error error_nowhere(std::string key, std::string message) {
  return error_at(YAML::Mark::null_mark(), std::move(key), std::move(message));
}

// Stores the table default of `key` (for the entry `name` under a segment).
void store_default(config& c, const config_key& key, std::string_view name,
                   std::vector<config_error>& errors) {
  if (key.type == value_type::enumeration && key.default_value.empty()) return;  // unset
  auto typed = type_scalar(key, key.default_value);
  if (const auto* reason = std::get_if<std::string>(&typed)) {
    errors.push_back(
        error_nowhere(std::string(key.name), "internal: the default does not type: " + *reason));
    return;
  }
  key.binding.store(c, key, name, std::get<typed_value>(typed));
}

// The parts of the config that span keys (step 5 of load_config).
class cross_checks {
 public:
  // `typed`: the keys (outside user-named segments) whose file value was valid.
  cross_checks(const walk_result& walk, const std::set<std::string_view>& typed,
               std::vector<config_error>& errors)
      : _walk(walk), _typed(typed), _errors(errors) {}

  void run(config& c) {
    check_name_style(c);
    check_topics(c);
    check_target();
    check_kafka(c);
    check_overrides(c);
    check_schema_registry(c.schema_registry);
    check_transforms(c, _walk, _errors);
    check_excluded_keys(c, _walk, _errors);
    check_modes(c);
    check_appends(c);
  }

 private:
  const found_value* given(std::string_view key) const {
    for (const auto& v : _walk.values) {
      if (v.key->name == key) return &v;
    }
    return nullptr;
  }

  // Key and insert modes (SPEC §6a "Modes"): deletes apply to rows keyed by the record's key
  // only, as in Connect (delete.enabled, unset, is false otherwise: the peers' default); an
  // append mode appends deletes as rows; an update needs a key to find its row.
  void check_modes(config& c) {
    const bool append = c.insert == insert_mode::insert || c.primary_key_mode == key_mode::kafka ||
                        c.primary_key_mode == key_mode::none;
    const std::string mode = "primary.key.mode " + std::string(to_string(c.primary_key_mode));
    if (const found_value* fields = given("primary.key.fields");
        fields != nullptr &&
        (c.primary_key_mode == key_mode::kafka || c.primary_key_mode == key_mode::none)) {
      _errors.push_back(
          error_at(fields->mark, "primary.key.fields",
                   "is not read under " + mode + " (the key is " +
                       (c.primary_key_mode == key_mode::kafka ? "the message's position)"
                                                              : "none: rows are appended)")));
    }
    if (c.insert == insert_mode::update && append) {
      _errors.push_back(error_at(mark_of("insert.mode"), "insert.mode",
                                 "update finds each change's row by its key: " + mode +
                                     " gives none (record_key, record_value or record_header)"));
    }
    const bool keyed_by_record = c.primary_key_mode == key_mode::record_key && !append;
    if (keyed_by_record) return;
    const found_value* deletes = given("delete.enabled");
    if (deletes == nullptr) {
      c.deletes.enabled = false;
    } else if (c.deletes.enabled) {
      _errors.push_back(error_at(
          deletes->mark, "delete.enabled",
          append
              ? "an append mode (" +
                    (c.insert == insert_mode::insert ? std::string("insert.mode insert") : mode) +
                    ") applies no delete, as in Connect: set delete.enabled: false "
                    "(ExtractNewRecordState's rewrite keeps deletes as rows, __deleted true)"
              : "requires primary.key.mode record_key, as in Connect: under " + mode +
                    " a delete's key is not the row's (set delete.enabled: false)"));
    }
  }

  // An append mode's changes have no key: keyless: dead_letter would refuse every one, and
  // ByLogicalTableRouter's shards share a target by their key column.
  void check_appends(const config& c) {
    const bool append = c.insert == insert_mode::insert || c.primary_key_mode == key_mode::kafka ||
                        c.primary_key_mode == key_mode::none;
    if (!append) return;
    if (c.keyless == keyless_mode::dead_letter) {
      _errors.push_back(error_at(mark_of("keyless"), "keyless",
                                 "dead_letter would refuse every change of an append mode "
                                 "(insert.mode insert, primary.key.mode kafka or none), whose "
                                 "changes are keyless: use keyless: append"));
    }
    for (const std::string& name : c.transforms) {
      const auto t = c.transform_settings.find(name);
      if (t == c.transform_settings.end()) continue;
      const auto kind = transform_kind_of(t->second.type);
      if (std::holds_alternative<transform_kind>(kind) &&
          std::get<transform_kind>(kind) == transform_kind::by_logical_table_router) {
        _errors.push_back(error_nowhere(
            "transforms." + name + ".type",
            "ByLogicalTableRouter's shards share one table by their key column; an append mode "
            "(insert.mode insert, primary.key.mode kafka or none) keys nothing: not supported "
            "together"));
      }
    }
  }

  YAML::Mark mark_of(std::string_view key) const {
    const found_value* v = given(key);
    return v != nullptr ? v->mark : YAML::Mark::null_mark();
  }

  void check_topics(const config& c) {
    const found_value* topics = given("topics");
    const found_value* regex = given("topics.regex");
    if (topics != nullptr && regex != nullptr) {
      _errors.push_back(error_at(regex->mark, "topics.regex",
                                 "topics and topics.regex exclude each other: give one"));
    } else if (topics == nullptr && regex == nullptr) {
      _errors.push_back(
          error_nowhere("topics", "required: the topics to consume (or topics.regex, a pattern)"));
    } else if (topics != nullptr && _typed.contains("topics") && c.topics.empty()) {
      _errors.push_back(error_at(topics->mark, "topics", "must name at least one topic"));
    }
  }

  // A config writes to one target, named by its DSN: postgres.dsn or mariadb.dsn.
  void check_target() {
    const found_value* postgres = given("postgres.dsn");
    const found_value* mariadb = given("mariadb.dsn");
    if (postgres != nullptr && mariadb != nullptr) {
      _errors.push_back(error_at(mariadb->mark, "mariadb.dsn",
                                 "postgres.dsn and mariadb.dsn exclude each other: sluice writes "
                                 "to one target, give one"));
    } else if (postgres == nullptr && mariadb == nullptr) {
      _errors.push_back(error_nowhere("postgres.dsn",
                                      "required: the target database, postgres.dsn (PostgreSQL) "
                                      "or mariadb.dsn (MariaDB)"));
    }
  }

  void check_kafka(config& c) {
    const found_value* kafka = given("kafka");
    if (kafka != nullptr && !_typed.contains("kafka")) return;  // its errors are reported
    if (!c.kafka_property("bootstrap.servers")) {
      const YAML::Mark mark = kafka != nullptr ? kafka->mark : YAML::Mark::null_mark();
      _errors.push_back(error_at(mark, "kafka.bootstrap.servers",
                                 "required: the Kafka brokers, e.g. 127.0.0.1:9092"));
    }
    if (!c.kafka_property("group.id") && !c.name.empty()) c.kafka.emplace_back("group.id", c.name);
    // Taking over from one's own group would read offsets sluice itself commits after its own.
    if (const found_value* takeover = given("offsets.takeover.group");
        takeover != nullptr && !c.takeover_group.empty() &&
        c.kafka_property("group.id") == c.takeover_group) {
      _errors.push_back(error_at(takeover->mark, "offsets.takeover.group",
                                 "is kafka.group.id (sluice's own group): name the connector's "
                                 "group, e.g. connect-<name>, and give sluice a group of its own"));
    }
  }

  // A placeholder of another style would be left in the table name as it is written.
  void check_name_style(config& c) {
    const found_value* format = given("table.name.format");
    // Both peers' default is the topic: the style's default where the file gives no format.
    if (format == nullptr && c.name_style != table_name_style::sluice) {
      c.table_name_format = "${topic}";
    }
    if (format == nullptr || !_typed.contains("table.name.format")) return;
    static constexpr std::string_view sluice_names[] = {"topic", "database", "schema", "table"};
    static constexpr std::string_view debezium_names[] = {"topic", "source.db", "source.schema",
                                                          "source.table"};
    static constexpr std::string_view confluent_names[] = {"topic"};
    std::span<const std::string_view> allowed = sluice_names;
    if (c.name_style == table_name_style::debezium) allowed = debezium_names;
    if (c.name_style == table_name_style::confluent) allowed = confluent_names;
    const std::string& f = c.table_name_format;
    for (size_t at = f.find("${"); at != std::string::npos; at = f.find("${", at + 2)) {
      const size_t close = f.find('}', at);
      if (close == std::string::npos) break;
      const std::string_view name = std::string_view(f).substr(at + 2, close - at - 2);
      if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
      std::string list;
      for (std::string_view a : allowed)
        list += (list.empty() ? "${" : ", ${") + std::string(a) + "}";
      _errors.push_back(error_at(format->mark, "table.name.format",
                                 "${" + std::string(name) +
                                     "} is not a placeholder of "
                                     "table.name.style " +
                                     std::string(to_string(c.name_style)) + " (" + list + ")"));
    }
  }

  // An override for a topic sluice does not consume is a typo until proven otherwise.
  void check_overrides(const config& c) {
    std::optional<topic_regex> pattern;
    if (!c.topics_regex.empty()) {
      try {
        pattern.emplace(c.topics_regex);
      } catch (const std::invalid_argument&) {
        return;  // reported on topics.regex
      }
    }
    if (c.topics.empty() && !pattern) return;  // reported on topics
    std::vector<std::string_view> topics(c.topics.begin(), c.topics.end());
    for (const auto& entry : _walk.entries) {
      if (entry.group != "topic.overrides.<topic>") continue;
      if (pattern) {
        if (!pattern->matches(entry.name)) {
          _errors.push_back(
              error_at(entry.mark, entry.path, "this topic does not match topics.regex"));
        }
      } else if (std::find(topics.begin(), topics.end(), entry.name) == topics.end()) {
        _errors.push_back(error_at(entry.mark, entry.path, "this topic is not among topics"));
      }
    }
  }

  // Connect's names are aliases: two names for one setting must not disagree (which would win
  // is not obvious to a reader of the file). A client certificate needs its key and back.
  void check_schema_registry(const schema_registry_config& r) {
    const auto disagree = [&](std::string_view alias, const std::string& value,
                              std::string_view key, const std::string& wins) {
      const found_value* at = given(alias);
      if (at == nullptr || value.empty() || wins.empty() || value == wins) return;
      _errors.push_back(error_at(at->mark, std::string(alias),
                                 std::string(alias) + " is another name for " + std::string(key) +
                                     " and differs from it: give one"));
    };
    disagree("value.converter.schema.registry.url", r.value_converter_url, "schema.registry.url",
             r.url);
    disagree("key.converter.schema.registry.url", r.key_converter_url, "schema.registry.url",
             r.url.empty() ? r.value_converter_url : r.url);
    disagree("basic.auth.user.info", r.user_info_alias, "schema.registry.basic.auth.user.info",
             r.user_info);
    if (r.certificate_location.empty() != r.key_location.empty()) {
      const bool cert = !r.certificate_location.empty();
      const std::string_view set =
          cert ? "schema.registry.ssl.certificate.location" : "schema.registry.ssl.key.location";
      const std::string_view missing =
          cert ? "schema.registry.ssl.key.location" : "schema.registry.ssl.certificate.location";
      const found_value* at = given(set);
      _errors.push_back(error_at(
          at != nullptr ? at->mark : YAML::Mark::null_mark(), std::string(missing),
          "required with " + std::string(set) + ": a client certificate and its key go together"));
    }
  }

  const walk_result& _walk;
  const std::set<std::string_view>& _typed;
  std::vector<config_error>& _errors;
};

// Errors in file order; those without a place (missing keys) last, in table order.
void sort_errors(std::vector<config_error>& errors, std::string_view file_name) {
  for (auto& e : errors)
    e.file = file_name;
  std::stable_sort(errors.begin(), errors.end(), [](const config_error& a, const config_error& b) {
    const int la = a.line == 0 ? std::numeric_limits<int>::max() : a.line;
    const int lb = b.line == 0 ? std::numeric_limits<int>::max() : b.line;
    return la != lb ? la < lb : a.column < b.column;
  });
}

load_result load_document(const YAML::Node& root, const env_lookup& env,
                          std::string_view file_name) {
  std::vector<config_error> errors;
  if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
    errors.push_back(error_at(root.Mark(), "",
                              "the configuration must be a map of keys (name: ..., kafka: ...)"));
    sort_errors(errors, file_name);
    return errors;
  }
  walk_result walk = root.IsMap() ? walk_config(root) : walk_result{};
  errors = walk.errors;
  config c;
  // Keys given in the file, by key name and entry name.
  std::set<std::pair<std::string_view, std::string>> given;
  std::set<std::string_view> typed_keys;
  std::vector<std::string> secrets;
  const value_reader reader(env, secrets);
  for (const auto& found : walk.values) {
    given.emplace(found.key->name, found.name);
    if (auto typed = reader.read(found, errors)) {
      found.key->binding.store(c, *found.key, found.name, *typed);
      if (!found.key->under_name()) typed_keys.insert(found.key->name);
    }
  }
  for (const auto& key : config_keys()) {
    if (!key.under_name()) {
      if (given.contains({key.name, ""})) continue;
      if (key.required) {
        errors.push_back(
            error_nowhere(std::string(key.name), "required: " + std::string(key.description)));
      } else {
        store_default(c, key, "", errors);
      }
      continue;
    }
    for (const auto& entry : walk.entries) {
      if (key.name.starts_with(entry.group + ".") && !given.contains({key.name, entry.name})) {
        store_default(c, key, entry.name, errors);
      }
    }
  }
  cross_checks(walk, typed_keys, errors).run(c);
  std::sort(secrets.begin(), secrets.end());
  secrets.erase(std::unique(secrets.begin(), secrets.end()), secrets.end());
  if (errors.empty()) {
    c.secrets = std::move(secrets);
    return c;
  }
  // The messages never quote a secret; this makes sure of it.
  for (auto& e : errors)
    e.message = redact_secrets(e.message, secrets);
  sort_errors(errors, file_name);
  return errors;
}

}  // namespace

std::string config_error::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

std::string load_result::error_text() const {
  std::string out;
  if (ok()) return out;
  for (const auto& e : errors())
    out += e.to_string() + "\n";
  return out;
}

load_result load_config(std::string_view yaml_text, const env_lookup& env,
                        std::string_view file_name) {
  YAML::Node document;
  try {
    const std::string text(yaml_text);
    const auto found = count_yaml_documents(text);
    if (found.stalled) {
      std::vector<config_error> errors{
          error_at(*found.stalled, "",
                   "invalid YAML: the parser cannot read on from here (a stray ',', ']' or '}' "
                   "outside brackets?)")};
      sort_errors(errors, file_name);
      return errors;
    }
    if (found.count > 1) {
      std::vector<config_error> errors{
          error_at(found.second, "",
                   "the file holds more than one YAML document; sluice reads one (remove the "
                   "\"---\" separators)")};
      sort_errors(errors, file_name);
      return errors;
    }
    document = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::vector<config_error> errors{error_at(e.mark, "", "invalid YAML: " + e.msg)};
    sort_errors(errors, file_name);
    return errors;
  }
  try {
    return load_document(document, env, file_name);
  } catch (const YAML::Exception& e) {
    // Not expected: the loader only reads nodes of the kind it checked. Reported, not thrown.
    std::vector<config_error> errors{error_at(e.mark, "", "cannot read the YAML: " + e.msg)};
    sort_errors(errors, file_name);
    return errors;
  }
}

load_result load_config_file(const std::string& path, const env_lookup& env) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    config_error e;
    e.file = path;
    e.message = std::string("cannot read the file: ") + std::strerror(errno);
    return std::vector<config_error>{e};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load_config(text.str(), env, path);
}

}  // namespace sluice
