#include <cstdint>

#include "connector/config/config.h"
#include "connector/config/config_binding.h"
#include "connector/config/config_checks.h"
#include "connector/config/config_table.h"

// How rows are written — deletes, truncates, tombstones, keyless tables, key and insert modes:
// a part of the key table (config_table.cc) kept here.

namespace sluice {
namespace {

using config_binding::field;

constexpr std::int64_t second = 1000;
constexpr std::int64_t minute = 60 * second;
constexpr std::int64_t day = 24 * 60 * minute;

// clang-format off
const config_key keys[] = {
  {.name = "delete.mode", .type = value_type::enumeration, .default_value = "hard",
   .allowed = delete_mode_names,
   .description = "hard removes the row (leaving a tombstone); soft keeps it with "
                  "`_sluice_deleted` set.",
   .binding = field<&config::deletes, &delete_config::mode>()},
  {.name = "delete.enabled", .type = value_type::boolean, .default_value = "true",
   .description = "Apply deletes; false records and counts them without applying them.",
   .binding = field<&config::deletes, &delete_config::enabled>()},
  {.name = "truncate.enabled", .type = value_type::boolean, .default_value = "false",
   .description = "Apply truncates (rows below the truncate's CSN are removed); false records "
                  "and counts them.",
   .binding = field<&config::truncate_enabled>()},
  {.name = "tombstone.retention", .type = value_type::duration, .default_value = "24h",
   .min = minute, .max = 3650 * day,
   .description = "How long a delete's tombstone keeps a late, older upsert from bringing the "
                  "row back.",
   .binding = field<&config::tombstone_retention>()},
  {.name = "keyless", .type = value_type::enumeration, .default_value = "append",
   .allowed = keyless_mode_names,
   .description = "Changes of tables without a key: append them (op, CSN and source context "
                  "included) or send them to the dead letters.",
   .binding = field<&config::keyless>()},
  {.name = "primary.key.mode", .type = value_type::enumeration, .default_value = "record_key",
   .allowed = key_mode_names,
   .description = "Where a row's key comes from, as the JDBC sinks say it: record_key, the "
                  "change's own key (the CDC envelope's or the catalog's); record_value, the "
                  "value's columns named by primary.key.fields (all of them when empty); "
                  "record_header, the Kafka headers named by primary.key.fields (all when "
                  "empty), as text; kafka, the message's position, written as __connect_topic, "
                  "__connect_partition and __connect_offset; none, no key. kafka and none are "
                  "append modes, as insert.mode insert is: every change is appended with its "
                  "op, CSN and source position, never collapsed by key, and a position is "
                  "written once whatever is replayed or redelivered (under kafka, one a table "
                  "Connect's sink keyed by __connect_* holds already is skipped too). "
                  "delete.enabled requires "
                  "record_key, as in Connect: under the other modes, and appending, deletes are "
                  "skipped as the peers skip them (ExtractNewRecordState's rewrite keeps them as "
                  "rows, __deleted true).",
   .binding = field<&config::primary_key_mode>()},
  {.name = "primary.key.fields", .type = value_type::string_list,
   .description = "With primary.key.mode record_key: the key columns kept (empty: all); "
                  "record_value: the value's columns that make the key, in order; "
                  "record_header: the headers that make the key. Connect's pk.fields.",
   .check = check_not_empty,
   .binding = field<&config::primary_key_fields>()},
  {.name = "insert.mode", .type = value_type::enumeration, .default_value = "upsert",
   .allowed = insert_mode_names,
   .description = "upsert writes each key's newest change, guarded by its CSN (any order of "
                  "delivery gives the same rows); insert appends every upsert as a row of a "
                  "history table (op, CSN, source position; a position is written once): a "
                  "table sluice creates has no primary key, an existing one with a primary key "
                  "sends an insert of a key it holds to the dead letters; update changes rows "
                  "that exist only, guarded by the CSN, and counts the changes of missing rows "
                  "without creating them (sluice_changes_total{outcome=\"missing\"}, and a "
                  "warning per table and batch).",
   .binding = field<&config::insert>()},
};
// clang-format on

}  // namespace

std::span<const config_key> write_config_keys() {
  return keys;
}

}  // namespace sluice
