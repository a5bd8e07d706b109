#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sluice {

struct config;
struct config_key;

enum class value_type {
  string,
  integer,
  boolean,
  duration,     // 500ms, 30s, 15m, 24h, 7d, or a sum such as 1h30m
  size,         // bytes: 1048576, or with a unit: 1KiB, 64MiB, 1GiB
  enumeration,  // one of config_key::allowed
  string_list,  // a YAML list, or one comma-separated string
  string_map,   // a YAML map of scalars, in file order
};
std::string_view to_string(value_type t);

using string_pairs = std::vector<std::pair<std::string, std::string>>;

// A value once typed by its key, before it is stored in a config: string and enumeration
// hold std::string, integer and size int64_t, duration milliseconds.
using typed_value = std::variant<std::string, std::int64_t, bool, std::chrono::milliseconds,
                                 std::vector<std::string>, string_pairs>;

// How a key reaches its field of `config`. For a key under a user-named segment
// (`tables.<source>.target`), `name` is that segment's value and `names` lists the ones present;
// for other keys `name` is empty and `names` is null.
struct key_binding {
  void (*store)(config& c, const config_key& key, std::string_view name,
                const typed_value& v) = nullptr;
  typed_value (*load)(const config& c, const config_key& key, std::string_view name) = nullptr;
  std::vector<std::string> (*names)(const config& c) = nullptr;
};

// One configuration key (STYLE.md #9, after librdkafka's rd_kafka_properties[]). The loader,
// the reference document and describe() all read this table; nothing else declares keys.
struct config_key {
  // Dotted path as in YAML (`postgres.dsn`). A segment in angle brackets (`<source>`) stands
  // for a name the user chooses, a YAML map key taken whole even if it holds dots.
  std::string_view name{};
  value_type type = value_type::string;
  // YAML text, typed exactly like a value from the file. "" is the empty string, list or map;
  // for an enumeration it means unset (the key inherits, as its description says).
  std::string_view default_value{};
  // Inclusive bounds for integer and size (in units) and duration (in milliseconds).
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::span<const std::string_view> allowed{};  // enumeration values
  bool required = false;
  bool secret = false;   // never in an error message; describe() prints it redacted
  bool routing = false;  // keeps ${topic} ${database} ${schema} ${table} for the table router
  std::string_view description{};
  // Rules the type does not express (a topic name's characters, a JSON pointer's syntax),
  // applied to each scalar: the value, each list item, each map entry (entry_key is the map
  // key, else empty). Returns the problem, or "" when the scalar is fine.
  std::string (*check)(std::string_view entry_key, std::string_view value) = nullptr;
  key_binding binding{};

  bool under_name() const { return name.find('<') != std::string_view::npos; }
};

// Every key, in reference order.
std::span<const config_key> config_keys();
// postgres.*, the replica's connection (config_table_postgres.cc): a part of config_keys(),
// kept in a file of their own.
std::span<const config_key> postgres_config_keys();
// mariadb.*, the MariaDB target's connection (config_table_mariadb.cc): a part of
// config_keys(), kept in a file of their own.
std::span<const config_key> mariadb_config_keys();
// How rows are written — deletes, truncates, tombstones, keyless tables, key and insert modes
// (config_table_writes.cc): a part of config_keys(), kept in a file of their own.
std::span<const config_key> write_config_keys();
// transforms, transforms.<name>.*, predicates, predicates.<name>.* (config_table_transforms.cc):
// a part of config_keys(), kept in a file of their own.
std::span<const config_key> transform_config_keys();
const config_key* find_config_key(std::string_view name);

// librdkafka properties that sluice sets itself; `kafka:` may not name them.
struct owned_kafka_property {
  std::string_view name{};
  std::string_view reason;
};
std::span<const owned_kafka_property> owned_kafka_properties();
const owned_kafka_property* find_owned_kafka_property(std::string_view name);

// The names topic.overrides.<topic>.field.names and .op.names may rename (GoldenGate lets its
// output field names and op strings be configured, SPEC §3).
std::span<const std::string_view> goldengate_field_names();
std::span<const std::string_view> goldengate_op_names();

}  // namespace sluice
