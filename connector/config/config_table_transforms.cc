#include "connector/config/config.h"
#include "connector/config/config_binding.h"
#include "connector/config/config_checks.h"
#include "connector/config/config_table.h"
#include "connector/config/transform_types.h"

// The transforms' and predicates' keys (Kafka Connect's own names), a part of the key table
// (config_table.cc) kept here: which a type reads is transform_types.h's.

namespace sluice {
namespace {

using config_binding::entry_field;
using config_binding::field;

// clang-format off
const config_key keys[] = {
  {.name = "transforms", .type = value_type::string_list,
   .description = "Kafka Connect transforms (SMTs) to run, in order, on each decoded change in "
                  "prepare/, before field rules, table filtering, the merge and routing, as "
                  "Connect's `transforms` list; empty: the file order of the transforms.<name> "
                  "entries. Each is configured with Connect's own keys, nested (transforms: "
                  "{route: {type: RegexRouter, ...}}) or flat (transforms.route.type: ...). Run "
                  "alike by run, replay and dead-letters replay.",
   .check = check_transform_name,
   .binding = field<&config::transforms>()},
  {.name = "transforms.<name>.type",
   .description = "RegexRouter, ReplaceField, Filter, InsertField, MaskField, "
                  "TimestampConverter, Cast, ValueToKey, ExtractNewRecordState or "
                  "ByLogicalTableRouter, or the class names "
                  "(org.apache.kafka.connect.transforms.RegexRouter, ...ReplaceField$Value, "
                  "io.debezium.transforms.ByLogicalTableRouter; a $Key variant is refused: "
                  "sluice's key is the row's columns). Required.",
   .check = check_transform_type,
   .binding = entry_field<&config::transform_settings, &transform_config::type>()},
  {.name = "transforms.<name>.regex",
   .description = "RegexRouter: a topic that this regular expression matches whole (Java's "
                  "matches(); std::regex ECMAScript syntax, without lookbehind or named groups) "
                  "is renamed to the replacement. The renamed topic is the one ${topic} routes "
                  "by and fields' topic:field entries name; other topics are left as they are.",
   .check = check_transform_regex,
   .binding = entry_field<&config::transform_settings, &transform_config::regex>()},
  {.name = "transforms.<name>.replacement",
   .description = "RegexRouter: the new topic name, with $1, $2... for the regex's groups "
                  "(Java's replacement syntax; \\$ for a $). MaskField: the value the masked "
                  "columns get (unset: the type's empty value, as Connect).",
   .binding = entry_field<&config::transform_settings, &transform_config::replacement>()},
  {.name = "transforms.<name>.include", .type = value_type::string_list,
   .description = "ReplaceField: keep only these columns (the key's always stay).",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::include>()},
  {.name = "transforms.<name>.exclude", .type = value_type::string_list,
   .description = "ReplaceField: drop these columns: never written nor created. A key column "
                  "cannot be dropped (a configured key: load error; else the message is a dead "
                  "letter naming it).",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::exclude>()},
  {.name = "transforms.<name>.whitelist", .type = value_type::string_list,
   .description = "ReplaceField: Connect 2.x's name for include.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::whitelist>()},
  {.name = "transforms.<name>.blacklist", .type = value_type::string_list,
   .description = "ReplaceField: Connect 2.x's name for exclude.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::blacklist>()},
  {.name = "transforms.<name>.renames", .type = value_type::string_list,
   .description = "ReplaceField: renames, old:new (after include and exclude, which name the "
                  "old names); a key column renamed renames the key; two columns onto one name "
                  "make the message a dead letter.",
   .check = check_transform_rename,
   .binding = entry_field<&config::transform_settings, &transform_config::renames>()},
  {.name = "transforms.<name>.predicate",
   .description = "The predicates.<name> this transform runs under: it applies to a change "
                  "only where the predicate matches (where it does not, with negate). Unset: "
                  "every change.",
   .check = check_transform_name,
   .binding = entry_field<&config::transform_settings, &transform_config::predicate>()},
  {.name = "transforms.<name>.negate", .type = value_type::boolean, .default_value = "false",
   .description = "Run the transform where its predicate does not match.",
   .binding = entry_field<&config::transform_settings, &transform_config::negate>()},
  {.name = "transforms.<name>.topic.field",
   .description = "InsertField: the column that gets the topic the change came on (after the "
                  "routers before it). A trailing ? or ! is Connect's optional/mandatory mark.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::topic_field>()},
  {.name = "transforms.<name>.partition.field",
   .description = "InsertField: the column that gets the Kafka partition.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::partition_field>()},
  {.name = "transforms.<name>.offset.field",
   .description = "InsertField: the column that gets the Kafka offset.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::offset_field>()},
  {.name = "transforms.<name>.timestamp.field",
   .description = "InsertField: the column that gets the Kafka message timestamp.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::timestamp_field>()},
  {.name = "transforms.<name>.static.field",
   .description = "InsertField: the column that gets static.value.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::static_field>()},
  {.name = "transforms.<name>.static.value",
   .description = "InsertField: the text static.field gets.",
   .binding = entry_field<&config::transform_settings, &transform_config::static_value>()},
  {.name = "transforms.<name>.fields", .type = value_type::string_list,
   .description = "MaskField: the columns masked. ValueToKey: the columns that become the "
                  "row's key, in order.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::fields>()},
  {.name = "transforms.<name>.field",
   .description = "TimestampConverter: the column converted.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::field>()},
  {.name = "transforms.<name>.target.type",
   .description = "TimestampConverter: what the column becomes: string, unix, Date, Time or "
                  "Timestamp.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::target_type>()},
  {.name = "transforms.<name>.format",
   .description = "TimestampConverter: a java.text.SimpleDateFormat pattern, to parse a string "
                  "column or to write target.type string.",
   .binding = entry_field<&config::transform_settings, &transform_config::format>()},
  {.name = "transforms.<name>.unix.precision",
   .description = "TimestampConverter: the unit of a unix time, read or written: seconds, "
                  "milliseconds (unset), microseconds or nanoseconds.",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::unix_precision>()},
  {.name = "transforms.<name>.spec", .type = value_type::string_list,
   .description = "Cast: field:type entries (int8, int16, int32, int64, float32, float64, "
                  "boolean, string).",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::spec>()},
  {.name = "transforms.<name>.delete.tombstone.handling.mode",
   .description = "ExtractNewRecordState (Debezium 3.x): what becomes of a delete: drop (nothing "
                  "is deleted), tombstone or delete-to-tombstone (unset: deleted), rewrite or "
                  "rewrite-with-tombstone (an upsert of the row it removes, __deleted true; "
                  "every other row __deleted false). Truncates are dropped, as Debezium's "
                  "transform drops them.",
   .check = check_tombstone_handling_mode,
   .binding = entry_field<&config::transform_settings,
                          &transform_config::delete_tombstone_handling_mode>()},
  {.name = "transforms.<name>.delete.handling.mode",
   .description = "ExtractNewRecordState (Debezium 2.x): drop (unset), rewrite or none; with "
                  "drop.tombstones false a dropped delete's tombstone deletes the row, as at a "
                  "JDBC sink. delete.tombstone.handling.mode wins over both.",
   .check = check_delete_handling_mode,
   .binding =
       entry_field<&config::transform_settings, &transform_config::delete_handling_mode>()},
  {.name = "transforms.<name>.drop.tombstones",
   .description = "ExtractNewRecordState (Debezium 2.x): true (unset) or false.",
   .check = check_boolean_text,
   .binding = entry_field<&config::transform_settings, &transform_config::drop_tombstones>()},
  {.name = "transforms.<name>.add.fields", .type = value_type::string_list,
   .description = "ExtractNewRecordState: envelope fields added as columns, named as Debezium "
                  "names them (op -> __op, source.ts_ms -> __source_ts_ms, field:NEW -> "
                  "<prefix>NEW): op, table, db, schema, lsn, source.*, ts_ms, "
                  "transaction.id...",
   .check = check_not_empty,
   .binding = entry_field<&config::transform_settings, &transform_config::add_fields>()},
  {.name = "transforms.<name>.add.fields.prefix",
   .description = "ExtractNewRecordState: the added columns' prefix (unset: __).",
   .binding = entry_field<&config::transform_settings, &transform_config::add_fields_prefix>()},
  {.name = "transforms.<name>.replace.null.with.default",
   .description = "ExtractNewRecordState (Debezium 3.x): accepted; sluice keeps a null as "
                  "null (it keeps no Connect schema defaults), as false does.",
   .check = check_boolean_text,
   .binding = entry_field<&config::transform_settings,
                          &transform_config::replace_null_with_default>()},
  {.name = "transforms.<name>.topic.regex",
   .description = "ByLogicalTableRouter (required): a topic this regular expression matches "
                  "whole (std::regex ECMAScript syntax, as RegexRouter's) is renamed to "
                  "topic.replacement, so that the shards of a logical table route to one "
                  "target through ${topic}; a topic it does not match (or renamed to \"\") is "
                  "left as it is, its changes untouched.",
   .check = check_transform_regex,
   .binding = entry_field<&config::transform_settings, &transform_config::topic_regex>()},
  {.name = "transforms.<name>.topic.replacement",
   .description = "ByLogicalTableRouter (required): the logical topic, with $1, $2... for "
                  "topic.regex's groups (Java's replacement syntax).",
   .binding = entry_field<&config::transform_settings, &transform_config::topic_replacement>()},
  {.name = "transforms.<name>.key.enforce.uniqueness",
   .description = "ByLogicalTableRouter: true (unset) adds key.field.name to the key of every "
                  "renamed keyed change (and to its row, as a column), so that rows of two "
                  "shards with one id stay two rows, and the shards may share a target; a "
                  "shard's truncate then removes that shard's rows only. false: the key is "
                  "left as it is, and two shards routed to one target are refused (their rows "
                  "would collide).",
   .check = check_boolean_text,
   .binding =
       entry_field<&config::transform_settings, &transform_config::key_enforce_uniqueness>()},
  {.name = "transforms.<name>.key.field.name",
   .description = "ByLogicalTableRouter: the key column naming the shard (unset: "
                  "__dbz__physicalTableIdentifier, as Debezium). A change whose key already has "
                  "it is a dead letter.",
   .binding = entry_field<&config::transform_settings, &transform_config::key_field_name>()},
  {.name = "transforms.<name>.key.field.regex",
   .description = "ByLogicalTableRouter: a regular expression over the topic as it came; where "
                  "it matches whole, the shard column's value is key.field.replacement, else "
                  "the topic itself (unset: the topic).",
   .check = check_optional_regex,
   .binding = entry_field<&config::transform_settings, &transform_config::key_field_regex>()},
  {.name = "transforms.<name>.key.field.replacement",
   .description = "ByLogicalTableRouter: the shard column's value, with $1, $2... for "
                  "key.field.regex's groups; required (not empty) with key.field.regex.",
   .binding =
       entry_field<&config::transform_settings, &transform_config::key_field_replacement>()},
  {.name = "transforms.<name>.schema.name.adjustment.mode",
   .description = "ByLogicalTableRouter: none, avro or avro_unicode; accepted, and nothing to "
                  "do: sluice keeps no Connect schema names.",
   .check = check_schema_name_adjustment_mode,
   .binding = entry_field<&config::transform_settings,
                          &transform_config::schema_name_adjustment_mode>()},
  {.name = "transforms.<name>.logical.table.cache.size",
   .description = "ByLogicalTableRouter: a positive integer; accepted, and nothing to do: "
                  "sluice caches each topic's route once.",
   .check = check_positive_integer_text,
   .binding =
       entry_field<&config::transform_settings, &transform_config::logical_table_cache_size>()},
  {.name = "predicates", .type = value_type::string_list,
   .description = "Kafka Connect predicates transforms may run under, as Connect's "
                  "`predicates` list; empty: the file order of the predicates.<name> entries.",
   .check = check_transform_name,
   .binding = field<&config::predicates>()},
  {.name = "predicates.<name>.type",
   .description = "TopicNameMatches, HasHeaderKey or RecordIsTombstone (or Connect's class "
                  "names, org.apache.kafka.connect.transforms.predicates.*). Required.",
   .check = check_predicate_type,
   .binding = entry_field<&config::predicate_settings, &predicate_config::type>()},
  {.name = "predicates.<name>.pattern",
   .description = "TopicNameMatches: a regular expression the topic matches whole.",
   .check = check_transform_regex,
   .binding = entry_field<&config::predicate_settings, &predicate_config::pattern>()},
  {.name = "predicates.<name>.name",
   .description = "HasHeaderKey: the header's name.",
   .check = check_not_empty,
   .binding = entry_field<&config::predicate_settings, &predicate_config::name>()},
};
// clang-format on

}  // namespace

std::span<const config_key> transform_config_keys() {
  return keys;
}

}  // namespace sluice
