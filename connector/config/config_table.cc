#include "connector/config/config_table.h"

#include <cstdint>
#include <iterator>
#include <vector>

#include "connector/config/config.h"
#include "connector/config/config_binding.h"
#include "connector/config/config_checks.h"

namespace sluice {
namespace {

using config_binding::entry_field;
using config_binding::field;

constexpr std::int64_t kib = 1024;
constexpr std::int64_t mib = 1024 * kib;
constexpr std::int64_t gib = 1024 * mib;
constexpr std::int64_t second = 1000;
constexpr std::int64_t minute = 60 * second;
constexpr std::int64_t hour = 60 * minute;
constexpr std::int64_t day = 24 * hour;

// clang-format off
const config_key keys_head[] = {
  {.name = "name", .required = true,
   .description = "Connector name: keys sluice's offsets and state in PostgreSQL and is the "
                  "default kafka group.id. Processes with one name share the partitions.",
   .check = check_not_empty,
   .binding = field<&config::name>()},
  {.name = "kafka", .type = value_type::string_map,
   .description = "librdkafka consumer properties, passed as given. bootstrap.servers is "
                  "required; group.id defaults to `name`. Properties sluice owns are rejected "
                  "(list below); sensitive ones (passwords, keys) are redacted.",
   .check = check_kafka_property,
   .binding = field<&config::kafka>()},
  {.name = "topics", .type = value_type::string_list,
   .description = "Topics to consume: a YAML list or one comma-separated string. Give exactly "
                  "one of topics and topics.regex.",
   .check = check_topic_name,
   .binding = field<&config::topics>()},
  {.name = "topics.regex",
   .description = "Consume every topic whose name matches this POSIX extended regular "
                  "expression from its start (a librdkafka regex subscription: `^` is "
                  "implied). Exclusive with topics.",
   .check = check_topic_regex,
   .binding = field<&config::topics_regex>()},
  {.name = "format", .type = value_type::enumeration, .default_value = "auto",
   .allowed = message_format_names,
   .description = "Envelope family of the messages; auto detects it per message.",
   .binding = field<&config::format>()},
};

// Then the PostgreSQL connection's (config_table_postgres.cc), the MariaDB connection's
// (config_table_mariadb.cc), then:
const config_key keys_batch[] = {
  {.name = "batch.size", .type = value_type::integer, .default_value = "10000",
   .min = 1, .max = 10'000'000,
   .description = "A batch closes when it holds this many rows (changes).",
   .binding = field<&config::batch, &batch_config::size>()},
  {.name = "batch.max.bytes", .type = value_type::size, .default_value = "16MiB",
   .min = kib, .max = 16 * gib,
   .description = "A batch closes when its messages hold this many bytes (keys and values). "
                  "With a few batches in flight and librdkafka's prefetch, this bounds memory: "
                  "16 MiB keeps sluice under 200 MB with a backlog of 3.7 KB Debezium messages.",
   .binding = field<&config::batch, &batch_config::max_bytes>()},
  {.name = "batch.max.ms", .type = value_type::integer, .default_value = "500",
   .min = 1, .max = 10 * minute,
   .description = "A batch closes this many milliseconds after its first message at the latest; "
                  "sooner when nothing is being applied and the consumer has no more messages "
                  "buffered.",
   .binding = field<&config::batch, &batch_config::max_time>()},
  {.name = "apply.lanes", .type = value_type::integer, .default_value = "2", .min = 1, .max = 64,
   .description = "PostgreSQL connections applying batches in parallel; partitions are spread "
                  "across them.",
   .binding = field<&config::apply_lanes>()},
  {.name = "auto.create", .type = value_type::boolean, .default_value = "true",
   .description = "Create a missing target table (and schema) from metadata or the values' kinds.",
   .binding = field<&config::auto_create>()},
  {.name = "auto.evolve", .type = value_type::boolean, .default_value = "true",
   .description = "Add columns that appear in the messages (never drops, never narrows). "
                  "sluice's own columns (_sluice_csn, _sluice_updated_at, _sluice_col_csn, "
                  "_sluice_deleted, keyless tables' _sluice_op and source context) are its "
                  "bookkeeping and are added to an existing table whatever this says: a table "
                  "another sink built is adopted in place, its rows (no CSN) older than any "
                  "change.",
   .binding = field<&config::auto_evolve>()},
  {.name = "auto.evolve.widen", .type = value_type::boolean, .default_value = "false",
   .description = "Widen an existing column when the stream's type for it has grown (varchar(40) "
                  "-> varchar(80), integer -> bigint, numeric(10,2) -> numeric(12,2)). ALTER "
                  "COLUMN TYPE may rewrite the table under an exclusive lock, so it is off by "
                  "default; then a value the column cannot hold is a dead letter naming the "
                  "table, column, type and value. Never narrows; columns named in column.types "
                  "are never changed.",
   .binding = field<&config::auto_evolve_widen>()},
  {.name = "ddl.failure", .type = value_type::enumeration, .default_value = "dead_letter",
   .allowed = ddl_failure_mode_names,
   .description = "When auto.create or auto.evolve fails on a table (permission denied, the "
                  "column limit, a view of that name): dead_letter sends that table's rows to "
                  "the dead letters (kind ddl_failed, with the PostgreSQL error) while every "
                  "other table goes on, and tries again with its next rows; fail stops the "
                  "connector in FAILED.",
   .binding = field<&config::ddl_failure>()},
};

// Then how rows are written (config_table_writes.cc), then:
const config_key keys_middle[] = {
  {.name = "offsets.out.of.range", .type = value_type::enumeration, .default_value = "fail",
   .allowed = out_of_range_mode_names,
   .description = "A stored offset the log no longer holds (retention or DeleteRecords moved "
                  "its start past it): fail stops that partition, naming the gap, and the "
                  "connector shows DEGRADED while the others go on; earliest or latest go on "
                  "from the log's start or end, logging what was skipped. (kafka.auto.offset."
                  "reset only says where a partition with no stored offset starts: sluice sets "
                  "librdkafka's to error and resets itself.)",
   .binding = field<&config::offsets_out_of_range>()},
  {.name = "offsets.takeover.group",
   .description = "Take over from a Kafka Connect sink (connect-<name>, as `config import` "
                  "writes it): a partition with no offsets in sluice's state starts from this "
                  "consumer group's committed offset, where it has one (elsewhere "
                  "kafka.auto.offset.reset says). While the group has live members (the "
                  "connector still running) sluice waits, DEGRADED (\"takeover\"), before "
                  "consuming anything. Must differ from kafka.group.id; empty: none.",
   .binding = field<&config::takeover_group>()},
  {.name = "errors.tolerance", .type = value_type::enumeration, .default_value = "all",
   .allowed = error_tolerance_names,
   .description = "all: a bad message goes to the dead letters and the connector goes on; "
                  "none: commit what precedes it and stop in FAILED.",
   .binding = field<&config::errors, &errors_config::tolerance>()},
  {.name = "errors.deadletterqueue.topic.name",
   .description = "Also produce dead letters to this Kafka topic, with their original key, "
                  "value and headers plus sluice's (__sluice.*) and Kafka Connect's "
                  "(__connect.errors.*) headers; empty: PostgreSQL only. A letter larger than "
                  "the topic's max.message.bytes (or the producer's message.max.bytes) is cut "
                  "to fit, __sluice.truncated giving the bytes cut; sluice.dead_letters keeps "
                  "it whole.",
   .check = check_optional_topic_name,
   .binding = field<&config::errors, &errors_config::dead_letter_topic>()},
  {.name = "errors.retry.max", .type = value_type::integer, .default_value = "10",
   .min = 0, .max = 1'000'000,
   .description = "Quiet retries of a statement-level transient PostgreSQL failure on a "
                  "reachable server (40001, 40P01, 55P03 lock timeout, 57014 statement "
                  "timeout, 25006, 53100 disk full, 53200 out of memory, 53300) after the "
                  "first attempt (0: none). Past them the statement is retried on, every "
                  "errors.retry.backoff.max at most, with the connector DEGRADED (the session "
                  "and the error in /status, sluice_degraded{dependency=\"postgres "
                  "statements\"}) until it goes through: never FAILED. Lost connections are "
                  "not counted here: postgres.retry.timeout bounds them.",
   .binding = field<&config::errors, &errors_config::retry_max>()},
  {.name = "errors.retry.backoff.max", .type = value_type::duration, .default_value = "30s",
   .min = 10, .max = hour,
   .description = "Ceiling of the exponential backoff between those retries, and between "
                  "sends to a dead-letter topic that cannot be written.",
   .binding = field<&config::errors, &errors_config::retry_backoff_max>()},
  {.name = "table.name.format", .default_value = "${schema}.${table}", .routing = true,
   .description = "Target `schema.table` of a source table without tables.<source>.target; "
                  "placeholders ${topic}, ${database}, ${schema} (the database where the source "
                  "has no schema), ${table}.",
   .check = check_routing_format,
   .binding = field<&config::table_name_format>()},
  {.name = "table.name.style", .type = value_type::enumeration, .default_value = "sluice",
   .allowed = table_name_style_names,
   .description = "How table.name.format is read. sluice: the placeholders above, the name "
                  "split into schema and table at its first dot. debezium: as Debezium's JDBC "
                  "sink 3.x reads collection.name.format: ${topic} (the topic, its dots "
                  "replaced by _), ${source.db}, ${source.schema}, ${source.table}. confluent: "
                  "as Confluent's JDBC sink reads table.name.format: ${topic} as it is. In both, "
                  "the name's dots qualify it as the peers parse it ([catalog.][schema.]table: "
                  "the catalog, the database connected to, is dropped; no schema: public), so a "
                  "replica either sink built is written in place; the format's default is then "
                  "${topic}, as theirs. Set by `sluice config import`.",
   .binding = field<&config::name_style>()},
  {.name = "identifier.case", .type = value_type::enumeration, .default_value = "lower",
   .allowed = letter_case_names,
   .description = "lower folds target table and column names to lower case; preserve keeps "
                  "them as sent.",
   .binding = field<&config::identifier_case>()},
  {.name = "tables.include", .type = value_type::string_list,
   .description = "Replicate only the source tables whose qualified name (e.g. "
                  "shop.public.orders) fully matches one of these regular expressions "
                  "(ECMAScript); empty: every table. Others are skipped, counted as filtered.",
   .check = check_table_pattern,
   .binding = field<&config::tables_include>()},
  {.name = "tables.exclude", .type = value_type::string_list,
   .description = "Skip the source tables whose qualified name fully matches one of these "
                  "regular expressions (after tables.include), counted as filtered.",
   .check = check_table_pattern,
   .binding = field<&config::tables_exclude>()},
  {.name = "fields.include", .type = value_type::string_list,
   .description = "Write only these columns (the key's are always written): `field` for every "
                  "table, `topic:field` for that topic's tables (Debezium's field.include.list; "
                  "Confluent's fields.whitelist); empty: every column. A column left out is "
                  "never written nor created.",
   .check = check_not_empty,
   .binding = field<&config::fields, &field_rules::include>()},
  {.name = "fields.exclude", .type = value_type::string_list,
   .description = "Never write nor create these columns: `field` or `topic:field` (Debezium's "
                  "field.exclude.list). A key column cannot be left out: a message whose key "
                  "has one is a dead letter saying so.",
   .check = check_not_empty,
   .binding = field<&config::fields, &field_rules::exclude>()},
  {.name = "fields.rename", .type = value_type::string_map,
   .description = "Column renames for every table, source name -> target name, applied before "
                  "the merge (a key column renamed renames the key); two columns renamed onto "
                  "one name make the message a dead letter.",
   .binding = field<&config::fields, &field_rules::rename>()},
  {.name = "tables.<source>.primary.key.fields", .type = value_type::string_list,
   .description = "Key columns of the source table named <source> (as the messages name it, "
                  "e.g. ROOT.SAMPLE), for sources whose messages do not say.",
   .check = check_not_empty,
   .binding = entry_field<&config::tables, &table_config::primary_key_fields>()},
  {.name = "tables.<source>.target", .routing = true,
   .description = "Target `schema.table` of that source table, instead of table.name.format "
                  "(same placeholders).",
   .binding = entry_field<&config::tables, &table_config::target>()},
  {.name = "tables.<source>.column.types", .type = value_type::string_map,
   .description = "PostgreSQL type of given columns when sluice creates or adds them, e.g. "
                  "{FIELD1: \"varchar(40)\"}.",
   .check = check_column_type,
   .binding = entry_field<&config::tables, &table_config::column_types>()},
  {.name = "tables.<source>.fields.include", .type = value_type::string_list,
   .description = "Columns of that source table to write (with fields.include's), as "
                  "fields.include says.",
   .check = check_not_empty,
   .binding = entry_field<&config::tables, &table_config::fields, &field_rules::include>()},
  {.name = "tables.<source>.fields.exclude", .type = value_type::string_list,
   .description = "Columns of that source table never written nor created (with "
                  "fields.exclude's).",
   .check = check_not_empty,
   .binding = entry_field<&config::tables, &table_config::fields, &field_rules::exclude>()},
  {.name = "tables.<source>.fields.rename", .type = value_type::string_map,
   .description = "Column renames of that source table, source name -> target name; they win "
                  "over fields.rename's.",
   .binding = entry_field<&config::tables, &table_config::fields, &field_rules::rename>()},
};

// Then transforms and predicates (config_table_transforms.cc), then:
const config_key keys_tail[] = {
  {.name = "topic.overrides.<topic>.format", .type = value_type::enumeration,
   .allowed = message_format_names,
   .description = "Envelope family of this topic's messages; unset: the global format.",
   .binding = entry_field<&config::topic_overrides, &topic_override::format>()},
  {.name = "topic.overrides.<topic>.csn.fields", .type = value_type::string_list,
   .description = "JSON pointers (RFC 6901) of the fields that make the CSN, most significant "
                  "first, for sources the built-in ordering rules do not cover.",
   .check = check_json_pointer,
   .binding = entry_field<&config::topic_overrides, &topic_override::csn_fields>()},
  {.name = "topic.overrides.<topic>.source.timezone", .default_value = "UTC",
   .description = "Zone of timestamps sent without one (Datastream timestamps, GoldenGate "
                  "op_ts): UTC, an offset such as +02:00, or an IANA name such as "
                  "Europe/Paris, looked up in the system tzdata when the configuration loads. "
                  "A local time that a DST change makes ambiguous (it occurs twice) or skips "
                  "takes the smaller of the two offsets, as PostgreSQL does: in Europe/Paris "
                  "2026-10-25 02:30 is 01:30Z (+01:00, the later instant) and 2026-03-29 02:30 "
                  "is 01:30Z (+01:00, i.e. 03:30+02:00).",
   .check = check_timezone,
   .binding = entry_field<&config::topic_overrides, &topic_override::source_timezone>()},
  {.name = "topic.overrides.<topic>.primary.key.fields", .type = value_type::string_list,
   .description = "Key columns of every table on this topic, for sources whose messages do "
                  "not say (tables.<source>.primary.key.fields wins).",
   .check = check_not_empty,
   .binding = entry_field<&config::topic_overrides, &topic_override::primary_key_fields>()},
  {.name = "topic.overrides.<topic>.field.names", .type = value_type::string_map,
   .description = "GoldenGate output field names, canonical name -> name as sent (canonical: "
                  "qual_table, op_type, op_ts, xid, pos, csn, before, after).",
   .check = check_goldengate_field,
   .binding = entry_field<&config::topic_overrides, &topic_override::field_names>()},
  {.name = "topic.overrides.<topic>.op.names", .type = value_type::string_map,
   .description = "GoldenGate op strings, canonical op -> string as sent (canonical: INSERT, "
                  "UPDATE, DELETE, UPSERT).",
   .check = check_goldengate_op,
   .binding = entry_field<&config::topic_overrides, &topic_override::op_names>()},
  {.name = "chunk.timeout", .type = value_type::duration, .default_value = "15m",
   .min = second, .max = 7 * day,
   .description = "A chunked DSQL image still incomplete after the consumed Kafka timestamps "
                  "moved this far past its first piece goes to the dead letters (stream time, "
                  "never more than a minute ahead of this machine's clock).",
   .binding = field<&config::chunk_timeout>()},
  {.name = "chunk.max.bytes", .type = value_type::size, .default_value = "64MiB",
   .min = kib, .max = gib,
   .description = "A complete chunked DSQL image whose fragments hold more is not "
                  "reassembled: its pieces go to the dead letters, without the fragments' "
                  "bytes (the size is summed in PostgreSQL, nothing is loaded).",
   .binding = field<&config::chunk_max_bytes>()},
  {.name = "limits.max.message.bytes", .type = value_type::size, .default_value = "16MiB",
   .min = kib, .max = gib,
   .description = "A bigger message is not decoded: it goes to the dead letters. The blocks "
                  "of a compressed Avro container may inflate to this much in all, not each; "
                  "what a message decodes into is bounded by 64 units a byte of it once "
                  "decompressed, and by 8 times this (docs/avro.md, \"Bounds per message\").",
   .binding = field<&config::limits, &limits_config::max_message_bytes>()},
  {.name = "limits.max.depth", .type = value_type::integer, .default_value = "64",
   .min = 1, .max = 1024,
   .description = "A message nested deeper is not decoded: it goes to the dead letters.",
   .binding = field<&config::limits, &limits_config::max_depth>()},
  {.name = "limits.max.columns", .type = value_type::integer, .default_value = "4096",
   .min = 1, .max = 100'000,
   .description = "A message with more columns is not decoded: it goes to the dead letters.",
   .binding = field<&config::limits, &limits_config::max_columns>()},
  {.name = "metrics.listen", .default_value = "127.0.0.1:9464",
   .description = "host:port of the HTTP endpoint (/metrics, /healthz, /readyz, /status, "
                  "/pause, /resume and Kafka Connect's REST API, /connectors/...); empty "
                  "disables it. Read at process start (a REST restart keeps it).",
   .check = check_listen_address,
   .binding = field<&config::metrics, &metrics_config::listen>()},
  {.name = "http.auth.token", .secret = true,
   .description = "Token that PUT /pause, /resume and every write of the Connect REST API "
                  "require (\"Authorization: Bearer <token>\", or the password of HTTP "
                  "Basic; 401 otherwise), and GET /status and the Connect reads too when "
                  "metrics.listen is not a loopback address; use ${ENV}. Unset, they are open "
                  "on a loopback address and disabled (403) on any other, such as 0.0.0.0 in a "
                  "container. /metrics, /healthz and /readyz need no token.",
   .binding = field<&config::http, &http_config::auth_token>()},
  // Schema Registry (docs/schema-registry.md). Connect's names are aliases with fields of
  // their own, so that an alias left unset never overwrites the key it stands for.
  {.name = "schema.registry.url", .description = "Base URL of the Confluent-compatible "
   "Schema Registry that Confluent-framed messages name their schemas in (GET {url}/schemas/"
   "ids/{id}); empty: none.", .check = check_registry_url,
   .binding = field<&config::schema_registry, &schema_registry_config::url>()},
  {.name = "value.converter.schema.registry.url", .description = "Kafka Connect's name for "
   "schema.registry.url (both given: they must agree).",
   .check = check_registry_url,
   .binding = field<&config::schema_registry, &schema_registry_config::value_converter_url>()},
  {.name = "key.converter.schema.registry.url", .description = "Kafka Connect's name for "
   "schema.registry.url (both given: they must agree).",
   .check = check_registry_url,
   .binding = field<&config::schema_registry, &schema_registry_config::key_converter_url>()},
  {.name = "schema.registry.basic.auth.user.info", .secret = true, .description = "HTTP basic "
   "authentication for the registry, as user:password; use ${ENV} or ${file:}.",
   .binding = field<&config::schema_registry, &schema_registry_config::user_info>()},
  {.name = "basic.auth.user.info", .secret = true, .description = "Kafka Connect's name for "
   "schema.registry.basic.auth.user.info (both given: they must agree).",
   .binding = field<&config::schema_registry, &schema_registry_config::user_info_alias>()},
  {.name = "schema.registry.ssl.ca.location", .description = "PEM file of the CAs that sign "
   "the registry's certificate (https); empty: the system's. Verification is always on.",
   .binding = field<&config::schema_registry, &schema_registry_config::ca_location>()},
  {.name = "schema.registry.ssl.certificate.location", .description = "PEM client "
   "certificate for registries that require one (with schema.registry.ssl.key.location).",
   .binding = field<&config::schema_registry, &schema_registry_config::certificate_location>()},
  {.name = "schema.registry.ssl.key.location", .description = "PEM private key of "
   "schema.registry.ssl.certificate.location.",
   .binding = field<&config::schema_registry, &schema_registry_config::key_location>()},
  {.name = "schema.registry.timeout.ms", .type = value_type::integer, .default_value = "10000",
   .min = 100, .max = 10 * minute, .description = "Time limit of one registry request in "
   "milliseconds; a request over it counts as the registry being unreachable (waited out).",
   .binding = field<&config::schema_registry, &schema_registry_config::timeout>()},
  {.name = "log.format", .type = value_type::enumeration, .default_value = "text",
   .allowed = log_format_names,
   .description = "One line per event, as text or as a JSON object.",
   .binding = field<&config::log, &log_config::format>()},
  {.name = "log.level", .type = value_type::enumeration, .default_value = "info",
   .allowed = log_level_names,
   .description = "Least severe level logged.",
   .binding = field<&config::log, &log_config::level>()},
};

const owned_kafka_property owned_properties[] = {
  {"enable.auto.commit", "sluice commits offsets itself, after the PostgreSQL transaction "
                         "that stores them"},
  {"auto.commit.enable", "sluice commits offsets itself, after the PostgreSQL transaction "
                         "that stores them"},
  {"enable.auto.offset.store", "sluice stores an offset only once its batch is applied"},
  {"partition.assignment.strategy", "sluice uses cooperative-sticky assignment"},
  {"group.protocol", "sluice uses the classic group protocol with cooperative-sticky "
                     "assignment"},
  {"group.remote.assignor", "sluice uses the classic group protocol with cooperative-sticky "
                            "assignment"},
  {"rebalance_cb", "sluice installs its own callbacks"},
  {"offset_commit_cb", "sluice installs its own callbacks"},
  {"error_cb", "sluice installs its own callbacks"},
  {"throttle_cb", "sluice installs its own callbacks"},
  {"log_cb", "sluice installs its own callbacks"},
  {"stats_cb", "sluice installs its own callbacks"},
  {"consume_cb", "sluice installs its own callbacks"},
  {"background_event_cb", "sluice installs its own callbacks"},
  {"oauthbearer_token_refresh_cb", "sluice installs its own callbacks"},
  {"dr_cb", "sluice installs its own callbacks"},
  {"dr_msg_cb", "sluice installs its own callbacks"},
  {"socket_cb", "sluice installs its own callbacks"},
  {"connect_cb", "sluice installs its own callbacks"},
  {"closesocket_cb", "sluice installs its own callbacks"},
  {"open_cb", "sluice installs its own callbacks"},
  {"resolve_cb", "sluice installs its own callbacks"},
  {"ssl.certificate.verify_cb", "sluice installs its own callbacks"},
  {"opaque", "a pointer, not a setting"},
  {"default_topic_conf", "a pointer, not a setting"},
  {"interceptors", "a pointer, not a setting"},
};

constexpr std::string_view goldengate_fields[] = {
    "qual_table", "op_type", "op_ts", "xid", "pos", "csn", "before", "after"};
constexpr std::string_view goldengate_ops[] = {"INSERT", "UPDATE", "DELETE", "UPSERT"};
// clang-format on

}  // namespace

std::string_view to_string(value_type t) {
  switch (t) {
    case value_type::string:
      return "string";
    case value_type::integer:
      return "integer";
    case value_type::boolean:
      return "boolean";
    case value_type::duration:
      return "duration";
    case value_type::size:
      return "size";
    case value_type::enumeration:
      return "enum";
    case value_type::string_list:
      return "list of strings";
    case value_type::string_map:
      return "map";
  }
  return "?";
}

std::span<const config_key> config_keys() {
  static const std::vector<config_key> keys = [] {
    std::vector<config_key> all(std::begin(keys_head), std::end(keys_head));
    const std::span<const config_key> postgres = postgres_config_keys();
    all.insert(all.end(), postgres.begin(), postgres.end());
    const std::span<const config_key> mariadb = mariadb_config_keys();
    all.insert(all.end(), mariadb.begin(), mariadb.end());
    all.insert(all.end(), std::begin(keys_batch), std::end(keys_batch));
    const std::span<const config_key> writes = write_config_keys();
    all.insert(all.end(), writes.begin(), writes.end());
    all.insert(all.end(), std::begin(keys_middle), std::end(keys_middle));
    const std::span<const config_key> transforms = transform_config_keys();
    all.insert(all.end(), transforms.begin(), transforms.end());
    all.insert(all.end(), std::begin(keys_tail), std::end(keys_tail));
    return all;
  }();
  return keys;
}

const config_key* find_config_key(std::string_view name) {
  for (const auto& k : config_keys()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::span<const owned_kafka_property> owned_kafka_properties() {
  return owned_properties;
}

const owned_kafka_property* find_owned_kafka_property(std::string_view name) {
  for (const auto& p : owned_properties) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::span<const std::string_view> goldengate_field_names() {
  return goldengate_fields;
}
std::span<const std::string_view> goldengate_op_names() {
  return goldengate_ops;
}

}  // namespace sluice
