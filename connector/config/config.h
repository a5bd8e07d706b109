#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

// The enumerated settings. Each *_names array lists the YAML spellings in the order of the
// enum's values: the key table (config_table.cc) takes its allowed values from these arrays,
// so an enum and its spellings are declared together, once.
enum class message_format { auto_detect, datastream, goldengate, dsql, debezium };
inline constexpr std::array<std::string_view, 5> message_format_names{
    "auto", "datastream", "goldengate", "dsql", "debezium"};

enum class delete_mode { hard, soft };
inline constexpr std::array<std::string_view, 2> delete_mode_names{"hard", "soft"};

enum class keyless_mode { append, dead_letter };
inline constexpr std::array<std::string_view, 2> keyless_mode_names{"append", "dead_letter"};

// primary.key.mode: where a row's key comes from (SPEC §6a "Modes", the JDBC sinks' names).
enum class key_mode { record_key, record_value, record_header, kafka, none };
inline constexpr std::array<std::string_view, 5> key_mode_names{"record_key", "record_value",
                                                                "record_header", "kafka", "none"};
// insert.mode: how a keyed change is written: a guarded upsert, appended, or an update of an
// existing row only.
enum class insert_mode { upsert, insert, update };
inline constexpr std::array<std::string_view, 3> insert_mode_names{"upsert", "insert", "update"};

// What a stored offset the log no longer holds (retention or DeleteRecords moved its start
// past it) does: stop that partition, or go on from the log's start or end.
enum class out_of_range_mode { fail, earliest, latest };
inline constexpr std::array<std::string_view, 3> out_of_range_mode_names{"fail", "earliest",
                                                                         "latest"};

enum class ddl_failure_mode { dead_letter, fail };
inline constexpr std::array<std::string_view, 2> ddl_failure_mode_names{"dead_letter", "fail"};

enum class error_tolerance { none, all };
inline constexpr std::array<std::string_view, 2> error_tolerance_names{"none", "all"};

enum class letter_case { lower, preserve };
inline constexpr std::array<std::string_view, 2> letter_case_names{"lower", "preserve"};
// table.name.style: how table.name.format is read (core/catalog/table_router.h name_style).
enum class table_name_style { sluice, debezium, confluent };
inline constexpr std::array<std::string_view, 3> table_name_style_names{"sluice", "debezium",
                                                                        "confluent"};

enum class log_format { text, json };
inline constexpr std::array<std::string_view, 2> log_format_names{"text", "json"};

enum class log_level { debug, info, warn, error };
inline constexpr std::array<std::string_view, 4> log_level_names{"debug", "info", "warn", "error"};

std::string_view to_string(message_format v);
std::string_view to_string(delete_mode v);
std::string_view to_string(keyless_mode v);
std::string_view to_string(key_mode v);
std::string_view to_string(insert_mode v);
std::string_view to_string(out_of_range_mode v);
std::string_view to_string(ddl_failure_mode v);
std::string_view to_string(error_tolerance v);
std::string_view to_string(letter_case v);
std::string_view to_string(table_name_style v);
std::string_view to_string(log_format v);
std::string_view to_string(log_level v);

// tables.<source>: what configuration says about one source table.
// fields.* and tables.<source>.fields.*: which of a table's columns are written, and under
// which names (connector/prepare/transforms/field_selection.h applies them).
struct field_rules {
  std::vector<std::string> include;  // empty: every column; global entries may be topic:field
  std::vector<std::string> exclude;
  std::map<std::string, std::string> rename;  // source column -> target column
};

// transforms.<name>: one Kafka Connect single message transform, Connect's own key names
// (connector/prepare/transforms/ runs them). Which keys a type reads: transform_types.h.
struct transform_config {
  std::string type;       // RegexRouter | ReplaceField | Filter | ..., or the Java class name
  std::string predicate;  // predicates.<name> the transform runs under; "": always
  bool negate = false;    // run where the predicate does not match
  std::string regex;
  std::string replacement;                        // RegexRouter: the topic; MaskField: the mask
  std::vector<std::string> include, exclude;      // ReplaceField
  std::vector<std::string> whitelist, blacklist;  // ReplaceField, Connect 2.x names
  std::vector<std::string> renames;               // ReplaceField, old:new
  // InsertField: the columns that receive the topic, partition, offset, Kafka timestamp and
  // a static value ("": none; a trailing ! or ? as Connect spells mandatory and optional).
  std::string topic_field, partition_field, offset_field, timestamp_field;
  std::string static_field, static_value;
  std::vector<std::string> fields;  // MaskField, ValueToKey
  // TimestampConverter: the column ("": the whole value, refused), what it becomes
  // (string | unix | Date | Time | Timestamp), a SimpleDateFormat pattern, unix.precision.
  std::string field, target_type, format, unix_precision;  // unix_precision "": milliseconds
  std::vector<std::string> spec;                           // Cast: field:type entries
  // ExtractNewRecordState, Debezium's options ("": unset, Debezium's default): the delete
  // modes (3.x delete.tombstone.handling.mode; 2.x delete.handling.mode, drop.tombstones),
  // add.fields and its prefix ("": "__"), replace.null.with.default ("true"/"false").
  std::string delete_tombstone_handling_mode, delete_handling_mode, drop_tombstones;
  std::vector<std::string> add_fields;
  std::string add_fields_prefix, replace_null_with_default;
  // ByLogicalTableRouter, Debezium's options ("": unset, Debezium's default): the topic's regex
  // and replacement (required), key.enforce.uniqueness ("true"/"false"; "": true), the key
  // column it adds ("": __dbz__physicalTableIdentifier) and the regex and replacement that make
  // its value from the topic; schema.name.adjustment.mode and logical.table.cache.size are
  // accepted and ignored.
  std::string topic_regex, topic_replacement, key_enforce_uniqueness, key_field_name;
  std::string key_field_regex, key_field_replacement;
  std::string schema_name_adjustment_mode, logical_table_cache_size;
};

// predicates.<name>: one Kafka Connect predicate that transforms.<name>.predicate names.
struct predicate_config {
  std::string type;     // TopicNameMatches | HasHeaderKey | RecordIsTombstone, or the class name
  std::string pattern;  // TopicNameMatches: a regex the topic matches whole
  std::string name;     // HasHeaderKey: the header's name
};

struct table_config {
  std::vector<std::string> primary_key_fields;      // empty: from the messages or the catalog
  std::string target;                               // empty: routed by table.name.format
  std::map<std::string, std::string> column_types;  // source column -> PostgreSQL type
  field_rules fields;                               // added to the global fields.*
};

// topic.overrides.<topic>: how to read one topic's messages.
struct topic_override {
  std::optional<message_format> format;  // unset: the global `format`
  std::vector<std::string> csn_fields;   // JSON pointers that make the CSN, in order
  std::string source_timezone;           // zone of timestamps written without one
  std::vector<std::string> primary_key_fields;
  std::map<std::string, std::string> field_names;  // GoldenGate: canonical field -> as sent
  std::map<std::string, std::string> op_names;     // GoldenGate: canonical op -> as sent
};

struct postgres_config {
  std::string dsn;  // secret: print through redact()
  std::string state_schema;
  std::chrono::milliseconds retry_timeout{};  // 0: wait an outage out, however long
  std::chrono::milliseconds connect_timeout{};
  std::chrono::milliseconds keepalives_idle{};
  std::chrono::milliseconds keepalives_interval{};
  int keepalives_count{};
  std::chrono::milliseconds tcp_user_timeout{};
  std::chrono::milliseconds statement_timeout{};
  std::chrono::milliseconds lock_timeout{};
  std::chrono::milliseconds ddl_lock_timeout{};       // 0: none
  std::chrono::milliseconds ddl_statement_timeout{};  // 0: none
  std::chrono::milliseconds idle_in_transaction_timeout{};
  std::chrono::milliseconds round_trip_timeout{};
};

// The MariaDB target's connection (mariadb.*): postgres_config's sibling. A config names one
// target: exactly one of postgres.dsn and mariadb.dsn is set (the loader refuses both and
// neither).
struct mariadb_config {
  std::string dsn;  // secret: print through redact()
  std::string state_database;
  std::chrono::milliseconds retry_timeout{};  // 0: wait an outage out, however long
  std::chrono::milliseconds connect_timeout{};
  std::chrono::milliseconds statement_timeout{};            // max_statement_time; 0: none
  std::chrono::milliseconds lock_timeout{};                 // innodb_lock_wait_timeout; 0: none
  std::chrono::milliseconds ddl_lock_timeout{};             // lock_wait_timeout of DDL; 0: none
  std::chrono::milliseconds ddl_statement_timeout{};        // 0: none
  std::chrono::milliseconds idle_in_transaction_timeout{};  // idle_transaction_timeout
  std::chrono::milliseconds round_trip_timeout{};
};

struct batch_config {
  std::size_t size{};       // rows
  std::size_t max_bytes{};  // message bytes
  std::chrono::milliseconds max_time{};
};

struct delete_config {
  delete_mode mode{};
  bool enabled{};
};

struct errors_config {
  error_tolerance tolerance{};
  std::string dead_letter_topic;  // empty: dead letters stay in PostgreSQL only
  int retry_max{};
  std::chrono::milliseconds retry_backoff_max{};
};

struct limits_config {
  std::size_t max_message_bytes{};
  std::size_t max_depth{};
  std::size_t max_columns{};
};

struct metrics_config {
  std::string listen;  // host:port; empty: no HTTP endpoint
};

struct http_config {
  std::string auth_token;  // PUT /pause and /resume need it as a bearer token; "": none
};

// The Confluent-compatible Schema Registry that Confluent-framed messages name their writer
// schemas in (SPEC §3). Connect's key names are accepted as aliases: effective_*() resolve them.
struct schema_registry_config {
  std::string url;                  // schema.registry.url
  std::string value_converter_url;  // value.converter.schema.registry.url (alias)
  std::string key_converter_url;    // key.converter.schema.registry.url (alias)
  std::string user_info;            // user:password; secret
  std::string user_info_alias;      // basic.auth.user.info (alias); secret
  std::string ca_location;
  std::string certificate_location;
  std::string key_location;
  std::chrono::milliseconds timeout{};

  // The first set of url, value_converter_url, key_converter_url ("": no registry).
  const std::string& effective_url() const;
  const std::string& effective_user_info() const;
};

struct log_config {
  log_format format{};
  log_level level{};
};

// The connector's configuration, typed (SPEC §6). Each field mirrors one key of the key table
// (config_table.cc): `batch.max.bytes` is `batch.max_bytes`. The defaults live in that table
// only, so a config is made by load_config() or config_with_defaults(), not by hand-filling
// fields (members are only zero-initialised). A loaded config is immutable data: share it
// by const reference across threads.
struct config {
  std::string name;
  // librdkafka properties in file order, as given; group.id is added (= name) when absent.
  // Secret ones (is_sensitive_kafka_property) must be printed through describe().
  std::vector<std::pair<std::string, std::string>> kafka;
  std::vector<std::string> topics;  // exactly one of topics and topics_regex is set
  std::string topics_regex;
  message_format format{};
  postgres_config postgres;  // the target when postgres.dsn is set
  mariadb_config mariadb;    // the target when mariadb.dsn is set
  batch_config batch;
  int apply_lanes{};
  bool auto_create{};
  bool auto_evolve{};
  bool auto_evolve_widen{};
  ddl_failure_mode ddl_failure{};
  delete_config deletes;
  bool truncate_enabled{};
  std::chrono::milliseconds tombstone_retention{};
  keyless_mode keyless{};
  key_mode primary_key_mode{};
  // primary.key.fields: record_key: the key columns kept (empty: all); record_value: the
  // value's columns that make the key (empty: all); record_header: the headers (empty: all).
  std::vector<std::string> primary_key_fields;
  insert_mode insert{};
  out_of_range_mode offsets_out_of_range{};
  // offsets.takeover.group: a partition with no offsets in sluice's state starts from this
  // consumer group's committed offset (a Kafka Connect sink's connect-<name>); "": none.
  std::string takeover_group;
  errors_config errors;
  std::string table_name_format;  // keeps ${topic} ${database} ${schema} ${table}
  table_name_style name_style{};
  letter_case identifier_case{};
  // tables.include / tables.exclude: regular expressions on the qualified source name.
  std::vector<std::string> tables_include;
  std::vector<std::string> tables_exclude;
  field_rules fields;  // fields.include / fields.exclude / fields.rename, every table
  // transforms: the names in the order they run (the file order of transforms.<name> when no
  // list is given); transform_settings: transforms.<name>.*.
  std::vector<std::string> transforms;
  std::map<std::string, transform_config> transform_settings;
  // predicates: the names transforms.<name>.predicate may give; predicate_settings: theirs.
  std::vector<std::string> predicates;
  std::map<std::string, predicate_config> predicate_settings;
  std::map<std::string, table_config> tables;             // by source name as messages give it
  std::map<std::string, topic_override> topic_overrides;  // by topic
  std::chrono::milliseconds chunk_timeout{};
  std::size_t chunk_max_bytes{};
  limits_config limits;
  metrics_config metrics;
  http_config http;
  schema_registry_config schema_registry;
  log_config log;
  // Values no output may show, whatever key they were given to: what ${file:} references read
  // and what ${ENV} gave sensitive librdkafka properties. Printed text goes through
  // redact_secrets() with them (describe(), logs, /status, `check`); not a key of the file.
  std::vector<std::string> secrets;

  // The target the file names: MariaDB when mariadb.dsn is set, else PostgreSQL.
  bool targets_mariadb() const { return !mariadb.dsn.empty(); }
  // The target's DSN (secret: print through redact()) and the schema (PostgreSQL) or database
  // (MariaDB) of sluice's own tables.
  const std::string& target_dsn() const { return targets_mariadb() ? mariadb.dsn : postgres.dsn; }
  const std::string& state_schema() const {
    return targets_mariadb() ? mariadb.state_database : postgres.state_schema;
  }

  // The format of `topic`'s messages: its override, else the global format.
  message_format format_for(std::string_view topic) const;
  // The value of a librdkafka property as configured, if set.
  std::optional<std::string> kafka_property(std::string_view property) const;
};

// Every key at its table default; required keys (name, the target's DSN, ...) left empty.
// For tests and tools that need a config without a file.
config config_with_defaults();

// The effective configuration as YAML, one key per line in table order, secrets redacted
// (postgres.dsn and mariadb.dsn through redact(), sensitive librdkafka properties as ***, and every
// value in `secrets` as *** wherever it stands). `sluice check` prints it.
std::string describe(const config& c);

}  // namespace sluice
