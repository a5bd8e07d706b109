#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// Per-scalar rules the key table attaches to keys (config_key::check). Each returns the
// problem in words, or "" when the scalar is fine; none echoes the value, so they are safe
// for secrets, except check_timezone (a zone name is never secret; its message names it and
// the nearest known zone) and check_kafka_property (librdkafka's words may quote the value;
// a sensitive property's is hidden). `entry` is the map key for map entries, else empty.

std::string check_not_empty(std::string_view entry, std::string_view value);
// A kafka: entry: not one sluice owns, and a name and value librdkafka's rd_kafka_conf_set
// takes.
// An unknown name gets the nearest of kafka_property_names() as a did-you-mean.
std::string check_kafka_property(std::string_view entry, std::string_view value);
// The names of librdkafka's configuration properties (global and topic), for the
// did-you-mean; from rd_kafka_conf_properties_show().
std::vector<std::string> kafka_property_names();
std::string check_topic_name(std::string_view entry, std::string_view value);
std::string check_optional_topic_name(std::string_view entry, std::string_view value);
std::string check_topic_regex(std::string_view entry, std::string_view value);
std::string check_table_pattern(std::string_view entry, std::string_view value);
std::string check_identifier(std::string_view entry, std::string_view value);
// MariaDB's: at most 64 characters (UTF-8 code points), no NUL.
std::string check_mariadb_identifier(std::string_view entry, std::string_view value);
std::string check_routing_format(std::string_view entry, std::string_view value);
std::string check_json_pointer(std::string_view entry, std::string_view value);
// What the decoders read as a zone (classify_zone_text, core/model/zone_text.h): UTC, Z,
// ±HH[:MM] up to 18:00, or a zone of the system's IANA database (looked up there, so a typo
// is refused at load time, not at the decoder's start).
std::string check_timezone(std::string_view entry, std::string_view value);
std::string check_listen_address(std::string_view entry, std::string_view value);
// A Schema Registry's base URL: empty (none), or http:// or https:// and a host — the only
// schemes the registry client speaks (an ftp:// URL would fail at the first message).
std::string check_registry_url(std::string_view entry, std::string_view value);
std::string check_column_type(std::string_view entry, std::string_view value);
std::string check_goldengate_field(std::string_view entry, std::string_view value);
std::string check_goldengate_op(std::string_view entry, std::string_view value);

}  // namespace sluice
