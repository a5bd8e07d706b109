#include "connector/config/import/connector_import.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "connector/config/config_checks.h"
#include "connector/config/import/import_mapper.h"
#include "connector/config/import/jdbc_url.h"
#include "connector/config/import/transform_import.h"
#include "connector/config/redact.h"

namespace sluice {
namespace {

// Keys a peer's connector has that sluice needs no setting for, with why.
const std::map<std::string, std::string>& covered() {
  static const std::map<std::string, std::string> keys = {
      {"connection.pool.min_size", "sluice's connections are apply.lanes, one per lane"},
      {"connection.pool.max_size", "sluice's connections are apply.lanes, one per lane"},
      {"connection.pool.acquire_increment", "sluice's connections are apply.lanes"},
      {"connection.pool.timeout", "sluice's connections are apply.lanes"},
      {"connection.provider", "sluice connects with libpq or MariaDB Connector/C"},
      {"connection.attempts",
       "an unreachable database is waited out (postgres.retry.timeout, mariadb.retry.timeout)"},
      {"connection.backoff.ms", "an unreachable database is waited out"},
      {"use.reduction.buffer", "sluice always collapses a batch by key (and by CSN)"},
      {"flush.max.retries", "transient errors are retried (errors.retry.max, then DEGRADED)"},
      {"flush.retry.delay.ms", "transient errors are retried with a backoff"},
      {"retry.backoff.ms", "transient errors are retried with a backoff"},
      {"trim.sensitive.log", "sluice never logs values or secrets"},
      {"errors.log.enable", "sluice logs every dead letter's reason"},
      {"errors.log.include.messages", "the raw bytes are kept in sluice.dead_letters"},
      {"errors.deadletterqueue.context.headers.enable",
       "sluice's letters always carry Connect's __connect.errors.* headers"},
      {"errors.deadletterqueue.topic.replication.factor", "create the topic beforehand"},
      {"errors.retry.timeout", "transient errors are retried until they go through"},
      {"errors.retry.delay.max.ms", "errors.retry.backoff.max"},
      {"key.converter.schemas.enable", "JSON with or without schemas is read as it comes"},
      {"value.converter.schemas.enable", "JSON with or without schemas is read as it comes"},
      {"key.converter.basic.auth.credentials.source", "the registry's user info is used"},
      {"value.converter.basic.auth.credentials.source", "the registry's user info is used"},
      {"header.converter", "headers are kept as bytes"},
      {"config.action.reload", "sluice reads its config at start"},
      {"key.converter", "the format is detected per message (format)"},
      {"value.converter", "the format is detected per message (format)"},
  };
  return keys;
}

bool is_librdkafka_property(const std::string& name) {
  static const std::vector<std::string> names = kafka_property_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string default_from(std::string_view key, std::string_view value, std::string_view peer_name) {
  return std::string(key) + " unset: " + std::string(peer_name) + "'s default, " +
         std::string(value);
}

// A jdbc:mariadb:// or jdbc:mysql:// URL as mariadb.dsn. The password is never copied: a
// provider reference becomes sluice's placeholder, a plain password MARIADB_PASSWORD's.
// Returns the URL's database, where the peer's unqualified table names live.
std::string map_mariadb_connection(mapper& m, import_result& r, const std::string& url,
                                   const std::optional<std::pair<std::string, std::string>>& user,
                                   const std::optional<std::pair<std::string, std::string>>& pw) {
  const bool url_password = url.find("password=") != std::string::npos;
  std::string placeholder;
  if (pw && pw->second.find("${") != std::string::npos) {
    placeholder = m.convert(pw->second);
  } else if (pw || url_password) {
    placeholder = "${MARIADB_PASSWORD}";
    m.variable("MARIADB_PASSWORD", std::string("the connector's ") +
                                       (pw ? "connection.password" : "connection.url password") +
                                       " (not copied)");
  }
  const jdbc_dsn dsn = jdbc_to_mariadb(url, user ? m.convert(user->second) : "", placeholder);
  if (!dsn.error.empty()) {
    r.error = "connection.url: " + dsn.error;
    return "";
  }
  m.line("mariadb.dsn", quoted(dsn.uri),
         "connection.url" + std::string(user ? " and " + user->first : "") +
             (pw ? " and connection.password" : "") + "; TLS: " + dsn.tls_note);
  for (const auto& [key, why] : dsn.unmapped)
    m.left_out(key, why);
  if (url.starts_with("jdbc:mysql://")) {
    m.left_out("connection.url jdbc:mysql://",
               "MySQL 8 is written to by the MariaDB target; where its SQL differs it is "
               "unit-tested, not run against a MySQL server (see the MariaDB page in docs/)");
  }
  return dsn.current_schema;
}

// Returns the URL's currentSchema ("" when none).
std::string map_connection(mapper& m, import_result& r, const std::string& peer_name) {
  const auto url = m.take({"connection.url"});
  const auto user = m.take({"connection.username", "connection.user"});
  const auto password = m.take({"connection.password"});
  if (!url) {
    r.error = "no connection.url: nothing says which database to write to";
    return "";
  }
  if (is_mariadb_jdbc_url(url->second)) {
    return map_mariadb_connection(m, r, url->second, user, password);
  }
  const jdbc_dsn dsn = jdbc_to_libpq(url->second, user ? m.convert(user->second) : "");
  if (!dsn.error.empty()) {
    r.error = "connection.url: " + dsn.error;
    return "";
  }
  m.line("postgres.dsn", quoted(dsn.uri),
         "connection.url" + std::string(user ? " and " + user->first : "") +
             "; TLS: " + dsn.tls_note + "; the password from PGPASSWORD");
  for (const auto& [key, why] : dsn.unmapped)
    m.left_out(key, why);
  if (password) {
    const bool provider = password->second.find("${") != std::string::npos;
    m.variable("PGPASSWORD", provider ? "what " + password->second + " gave the connector"
                                      : "the connector's connection.password (not copied)");
  }
  (void)peer_name;
  return dsn.current_schema;
}

// Connect reads the modes in any case (ConfigDef's case-insensitive validators).
std::string lower_text(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

void map_writes(mapper& m, const std::string& peer_name) {
  const bool dbz = m.which() == peer::debezium;
  // insert.mode and the key mode as they are (SPEC §6a "Modes"): sluice has the peers' modes,
  // unset ones at the peer's default (insert, none: an append-only table).
  const auto insert = m.take({"insert.mode"});
  const std::string mode = insert ? lower_text(insert->second) : "insert";
  const std::string mode_key = insert ? insert->first : "insert.mode";
  if (mode == "upsert" || mode == "insert" || mode == "update") {
    m.line("insert.mode", mode,
           insert ? mode_key : default_from("insert.mode", "insert", peer_name));
  } else {
    m.left_out(mode_key + "=" + mode, "not an insert mode (upsert, insert, update)");
  }
  const auto pk = m.take({"primary.key.mode", "pk.mode"});
  const std::string pk_mode = pk ? lower_text(pk->second) : "none";
  const std::string pk_key = pk ? pk->first : std::string(dbz ? "primary.key.mode" : "pk.mode");
  constexpr std::string_view modes[] = {"record_key", "record_value", "record_header", "kafka",
                                        "none"};
  const bool known = std::find(std::begin(modes), std::end(modes), pk_mode) != std::end(modes);
  if (known) {
    m.line("primary.key.mode", pk_mode, pk ? pk_key : default_from(pk_key, "none", peer_name));
  } else {
    m.left_out(pk_key + "=" + pk_mode,
               "not a key mode (record_key, record_value, record_header, kafka, none)");
  }
  if (const auto fields = m.take({"primary.key.fields", "pk.fields"})) {
    const std::vector<std::string> names = split_list(fields->second);
    if (pk_mode == "kafka") {
      // Connect names the position columns by pk.fields; sluice writes its defaults.
      if (names !=
          std::vector<std::string>{"__connect_topic", "__connect_partition", "__connect_offset"})
        m.left_out(fields->first + "=" + fields->second,
                   "sluice writes the position as __connect_topic, __connect_partition and "
                   "__connect_offset (Connect's default names)");
    } else if (pk_mode != "none") {  // none reads no fields, in Connect as in sluice
      m.line("primary.key.fields", yaml_list(names), fields->first);
    }
  }
  const auto del = m.take({"delete.enabled"});
  const bool deletes = del && del->second == "true";
  if (deletes && mode == "insert") {
    m.left_out("delete.enabled=true",
               "an insert-mode table is appended to and applies no delete in sluice (written as "
               "false; ExtractNewRecordState's rewrite keeps deletes as rows, __deleted true)");
  }
  m.line("delete.enabled", deletes && mode != "insert" ? "true" : "false",
         del ? "delete.enabled" : default_from("delete.enabled", "false", peer_name));
  if (dbz) {
    const auto truncate = m.take({"truncate.enabled"});
    m.line("truncate.enabled", truncate ? truncate->second : "false",
           truncate ? "truncate.enabled" : default_from("truncate.enabled", "false", peer_name));
    const auto evolution = m.take({"schema.evolution"});
    const std::string e = evolution ? evolution->second : "none";
    const std::string from =
        evolution ? "schema.evolution=" + e : default_from("schema.evolution", "none", peer_name);
    m.line("auto.create", e == "basic" ? "true" : "false", from);
    m.line("auto.evolve", e == "basic" ? "true" : "false", from);
  } else {
    for (const char* key : {"auto.create", "auto.evolve"}) {
      const auto v = m.take({key});
      m.line(key, v ? v->second : "false", v ? key : default_from(key, "false", peer_name));
    }
  }
}

// Whether a table name format names its schema: a dot outside its ${...} placeholders.
bool qualified(std::string_view format) {
  int depth = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format.compare(i, 2, "${") == 0) {
      ++depth;
      ++i;
    } else if (format[i] == '}' && depth > 0) {
      --depth;
    } else if (format[i] == '.' && depth == 0) {
      return true;
    }
  }
  return false;
}

void map_naming(mapper& m, const std::string& peer_name, const std::string& current_schema) {
  const bool dbz = m.which() == peer::debezium;
  const auto format =
      dbz ? m.take({"collection.name.format", "table.name.format"}) : m.take({"table.name.format"});
  std::string f = format ? format->second : "${topic}";
  std::string from = format ? format->first
                            : default_from(dbz ? "collection.name.format" : "table.name.format",
                                           "${topic}", peer_name);
  // The peer's unqualified names live in the URL's currentSchema (its search_path), not in
  // sluice's default schema: the format says so.
  if (!current_schema.empty() && !qualified(f)) {
    f = current_schema + "." + f;
    from += ", in connection.url's currentSchema";
  }
  m.line(
      "table.name.style", dbz ? "debezium" : "confluent",
      std::string(format ? format->first : (dbz ? "collection.name.format" : "table.name.format")) +
          " is read as " + peer_name + " reads it");
  m.line("table.name.format", quoted(m.convert(f)), from);
  if (dbz) {
    const auto quote = m.take({"quote.identifiers"});
    const bool keep = quote && quote->second == "true";
    m.line(
        "identifier.case", keep ? "preserve" : "lower",
        quote ? "quote.identifiers=" + quote->second
              : default_from("quote.identifiers", "false (names folded to lower case)", peer_name));
    for (const char* strategy : {"collection.naming.strategy", "column.naming.strategy"}) {
      if (auto s = m.take({strategy})) {
        m.left_out(std::string(strategy) + "=" + s->second,
                   "a custom naming class cannot run in sluice");
      }
    }
  } else {
    const auto quote = m.take({"quote.sql.identifiers"});
    const bool keep = !quote || quote->second != "never";
    m.line("identifier.case", keep ? "preserve" : "lower",
           quote ? "quote.sql.identifiers=" + quote->second
                 : default_from("quote.sql.identifiers", "always (case kept)", peer_name));
  }
}

void map_fields(mapper& m) {
  if (auto include = m.take({"field.include.list", "fields.whitelist"})) {
    m.line("fields.include", yaml_list(split_list(include->second)), include->first);
  }
  if (auto exclude = m.take({"field.exclude.list"})) {
    m.line("fields.exclude", yaml_list(split_list(exclude->second)), exclude->first);
  }
}

void map_time_zone(mapper& m) {
  if (auto zone = m.take({"use.time.zone", "database.time_zone", "db.timezone"})) {
    if (zone->second != "UTC" && zone->second != "Z" && zone->second != "Etc/UTC") {
      m.left_out(zone->first + "=" + zone->second,
                 "sluice writes zoned timestamps as timestamptz (UTC-based, shown in the "
                 "session's zone): no conversion to another zone");
    }
  }
}

void map_errors_and_topics(mapper& m, const connect_config& c) {
  if (auto topics = m.take({"topics"})) {
    m.line("topics", yaml_list(split_list(topics->second)), "topics");
  }
  if (auto regex = m.take({"topics.regex"})) {
    m.line("topics.regex", quoted(regex->second),
           "topics.regex (a Java regex there, POSIX extended here: check it)");
  }
  const auto tolerance = m.take({"errors.tolerance"});
  m.line("errors.tolerance", tolerance ? tolerance->second : "none",
         tolerance ? "errors.tolerance" : "errors.tolerance unset: Kafka Connect's default, none");
  if (auto dlq = m.take({"errors.deadletterqueue.topic.name"})) {
    m.line("errors.deadletterqueue.topic.name", quoted(dlq->second), dlq->first);
  }
  if (auto retries = m.take({"max.retries"})) {
    m.line("errors.retry.max", retries->second, "max.retries (then DEGRADED, never FAILED)");
  }
  if (auto tasks = m.take({"tasks.max"})) {
    const auto n = parse_config_integer(tasks->second);
    if (!n || *n < 1) {
      m.left_out("tasks.max=" + tasks->second, "not a number of tasks");
    } else {
      // apply.lanes takes 1..64; more lanes than that is more connections than helps.
      m.line("apply.lanes", std::to_string(std::min<int64_t>(*n, 64)),
             *n > 64 ? "tasks.max=" + tasks->second + ", capped at apply.lanes' 64"
                     : "tasks.max: lanes apply partitions in parallel");
    }
  }
  if (auto batch = m.take({"batch.size"})) {
    m.line("batch.size", batch->second, "batch.size");
  }
  if (auto registry = m.take({"value.converter.schema.registry.url",
                              "key.converter.schema.registry.url", "schema.registry.url"})) {
    m.line("schema.registry.url", quoted(m.convert(registry->second)), registry->first);
    m.mark("key.converter.schema.registry.url");
  }
  if (auto info = m.take({"value.converter.basic.auth.user.info",
                          "key.converter.basic.auth.user.info", "basic.auth.user.info"})) {
    const bool provider = info->second.find("${") != std::string::npos;
    const std::string value = provider ? m.convert(info->second) : "${SLUICE_REGISTRY_USER_INFO}";
    if (!provider)
      m.variable("SLUICE_REGISTRY_USER_INFO", "the connector's " + info->first + " (not copied)");
    m.line("schema.registry.basic.auth.user.info", quoted(value), info->first);
    m.mark("key.converter.basic.auth.user.info");
  }
  (void)c;
}

}  // namespace

import_result import_connector(const connect_config& c, const std::string& source_name) {
  import_result r;
  const auto cls = c.get("connector.class");
  peer p;
  if (cls == "io.debezium.connector.jdbc.JdbcSinkConnector") {
    p = peer::debezium;
    r.peer = "Debezium JDBC sink";
  } else if (cls == "io.confluent.connect.jdbc.JdbcSinkConnector") {
    p = peer::confluent;
    r.peer = "Confluent JDBC sink";
  } else {
    r.error = cls ? "connector.class " + *cls + " is neither Debezium's nor Confluent's JDBC sink"
                  : "no connector.class";
    return r;
  }
  mapper m(c, p, r);
  m.mark("connector.class");
  m.mark("name");
  const std::string name = c.name.empty() ? "imported" : c.name;
  m.line("name", quoted(name), c.name.empty() ? "no name given" : "the connector's name");
  const std::string current_schema = map_connection(m, r, r.peer);
  if (!r.error.empty()) return r;
  m.line("format", p == peer::debezium ? "debezium" : "auto",
         p == peer::debezium ? "Debezium's sink reads Debezium change events"
                             : "detected per message (Debezium, Datastream, GoldenGate, DSQL)");
  map_errors_and_topics(m, c);
  map_writes(m, r.peer);
  map_naming(m, r.peer, current_schema);
  map_fields(m);
  map_time_zone(m);
  map_transforms(m, c);
  // The takeover: sluice's own group, the connector's named to start from.
  m.line("offsets.takeover.group", quoted("connect-" + name),
         "the connector's consumer group: sluice starts where it committed");
  m.kafka("bootstrap.servers", quoted("${KAFKA_BOOTSTRAP_SERVERS}"),
          "the Connect worker's bootstrap.servers (not in the connector's config)");
  m.variable("KAFKA_BOOTSTRAP_SERVERS", "the Connect worker's bootstrap.servers");
  m.kafka("group.id", quoted("sluice-" + name), "sluice's own group, not connect-" + name);
  std::string reset = "earliest";
  std::string reset_from = "Kafka Connect's sink consumers start from earliest";
  for (const auto& [k, v] : c.entries) {
    if (!k.starts_with("consumer.override.")) continue;
    m.mark(k);
    const std::string property = k.substr(18);
    if (property == "group.id") {
      m.left_out(key_value(k, v), "the connector's group is connect-" + name +
                                      " unless overridden: set offsets.takeover.group to " + v);
    } else if (property == "auto.offset.reset") {
      reset = v;
      reset_from = k;
    } else if (property == "fetch.max.wait.ms") {
      m.kafka("fetch.wait.max.ms", quoted(m.convert(v)), k + " (librdkafka's name)");
    } else if (is_librdkafka_property(property) && is_sensitive_kafka_property(property) &&
               v.find("${") == std::string::npos) {
      // A secret is never copied: a variable takes its place, named after the property.
      const std::string variable = "SLUICE_KAFKA_" + upper_name(property);
      m.kafka(property, quoted("${" + variable + "}"), k + " (not copied)");
      m.variable(variable, "the connector's " + k + " (not copied)");
    } else if (is_librdkafka_property(property)) {
      m.kafka(property, quoted(m.convert(v)), k);
    } else {
      m.left_out(key_value(k, v),
                 "a Java client property librdkafka has no equivalent of (JKS "
                 "stores and JAAS configs: librdkafka takes PEM files and "
                 "sasl.username/sasl.password)");
    }
  }
  m.kafka("auto.offset.reset", quoted(reset), reset_from);
  // What is left: known keys sluice needs nothing for, or keys it does not know.
  std::string covered_text;
  for (const auto& [k, v] : c.entries) {
    if (m.taken().contains(k)) continue;
    if (auto it = covered().find(k); it != covered().end()) {
      covered_text += "#   " + k + ": " + it->second + "\n";
      continue;
    }
    if (k.starts_with("key.converter.") || k.starts_with("value.converter.")) {
      covered_text += "#   " + k + ": the format is read per message\n";
      continue;
    }
    m.left_out(key_value(k, v), "not a setting of " + r.peer + " sluice knows");
  }
  r.yaml = "# sluice configuration imported from " + source_name + " (" + r.peer + " connector " +
           quoted(name) + ") by `sluice config import`.\n# Each key says which of the " +
           "connector's keys it came from; unset ones take " + r.peer + "'s defaults.\n" + m.yaml();
  if (!covered_text.empty()) {
    r.yaml += "# Connector keys sluice needs no setting for:\n" + covered_text;
  }
  return r;
}

}  // namespace sluice
