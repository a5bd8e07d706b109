#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sluice {

// The Kafka Connect transforms (SMTs) sluice runs in prepare/ (connector/prepare/transforms/),
// and the pieces of their settings the loader checks and the runtime reads alike, so that what
// loads is what runs.
enum class transform_kind {
  regex_router,
  replace_field,
  filter,
  insert_field,
  mask_field,
  timestamp_converter,
  cast,
  value_to_key,
  extract_new_record_state,
  by_logical_table_router,
};

// The kind transforms.<name>.type names: its simple name (RegexRouter, InsertField, ...) or
// Connect's class name (org.apache.kafka.connect.transforms.RegexRouter, ...InsertField$Value;
// Debezium's in io.debezium.transforms.: ExtractNewRecordState, ByLogicalTableRouter).
// Else the reason: a $Key variant refused (sluice's key is the row's own columns, renamed and
// chosen through the value's), anything else unknown with the known ones listed.
std::variant<transform_kind, std::string> transform_kind_of(std::string_view type);
// The simple name of a kind ("RegexRouter").
std::string_view transform_name(transform_kind kind);
// The settings (after "transforms.<name>.") a kind reads, besides type, predicate and negate;
// the ones it requires. What the loader checks and the importer maps alike.
std::span<const std::string_view> transform_settings_of(transform_kind kind);
std::span<const std::string_view> transform_required_settings(transform_kind kind);

// ByLogicalTableRouter's key column, from its settings as given ("": unset): key.field.name,
// else Debezium's default; "" when key.enforce.uniqueness is false (no column is added).
inline constexpr std::string_view default_shard_key_field = "__dbz__physicalTableIdentifier";
std::string shard_key_field(std::string_view enforce_uniqueness, std::string_view key_field_name);

enum class predicate_kind { topic_name_matches, has_header_key, record_is_tombstone };
// The kind predicates.<name>.type names (simple or org.apache.kafka.connect.transforms.
// predicates.* class name); else why not.
std::variant<predicate_kind, std::string> predicate_kind_of(std::string_view type);

// A piece of a replacement: literal text, or the text of a capturing group (group >= 0).
struct replacement_piece {
  std::string literal;
  int group = -1;
};
// A replacement as java.util.regex.Matcher reads it: `$n` is group n (further digits join the
// number while it stays a group of the regex: `$12` is group 1 then "2" with one group), `\x`
// is x literally; `${name}` is refused (std::regex has no named groups), as are a `$` that
// names no group and a reference past the regex's `groups`.
std::variant<std::vector<replacement_piece>, std::string> parse_java_replacement(
    std::string_view text, std::size_t groups);

// A ReplaceField renames entry, `old:new` (both non-empty); nothing when it is not one.
std::variant<std::pair<std::string, std::string>, std::string> parse_rename(std::string_view entry);

// Why a RegexRouter regex cannot run as Java would run it ("" when it can): not a std::regex
// ECMAScript expression, or one with a possessive quantifier, which ECMAScript reads otherwise.
std::string regex_error_text(std::string_view regex);

// Per-scalar rules for the key table (config_key::check): "" when fine.
std::string check_transform_type(std::string_view entry, std::string_view value);
// A RegexRouter regex: a std::regex ECMAScript expression (see docs: Java's and ECMAScript's
// syntax differ in lookbehind and named groups).
std::string check_transform_regex(std::string_view entry, std::string_view value);
std::string check_transform_rename(std::string_view entry, std::string_view value);
// predicates.<name>.type: a predicate_kind_of one.
std::string check_predicate_type(std::string_view entry, std::string_view value);
// ExtractNewRecordState's delete modes, as Debezium reads them (any case): 3.x's
// delete.tombstone.handling.mode, 2.x's delete.handling.mode; and a "true"/"false" option.
std::string check_tombstone_handling_mode(std::string_view entry, std::string_view value);
std::string check_delete_handling_mode(std::string_view entry, std::string_view value);
std::string check_boolean_text(std::string_view entry, std::string_view value);
// ByLogicalTableRouter: key.field.regex ("" is unset, as Debezium trims it), Debezium's
// schema.name.adjustment.mode (none, avro, avro_unicode), logical.table.cache.size (> 0).
std::string check_optional_regex(std::string_view entry, std::string_view value);
std::string check_schema_name_adjustment_mode(std::string_view entry, std::string_view value);
std::string check_positive_integer_text(std::string_view entry, std::string_view value);
// A transform's name: one segment (transforms.<name>.type is also written flat, as Connect).
std::string check_transform_name(std::string_view entry, std::string_view value);

}  // namespace sluice
