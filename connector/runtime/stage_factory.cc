#include "connector/runtime/stage_factory.h"

#include <stdexcept>
#include <string>

#include "schemas/datastream/datastream_decoder.h"

namespace sluice {
namespace {

decode_limits limits_of(const config& cfg) {
  decode_limits l;
  l.max_message_bytes = cfg.limits.max_message_bytes;
  l.max_depth = cfg.limits.max_depth;
  l.max_columns = cfg.limits.max_columns;
  return l;
}

}  // namespace

std::unique_ptr<decoder> make_decoder(const config& cfg, std::string_view topic,
                                      table_catalog& catalog) {
  const message_format format = cfg.format_for(topic);
  std::string timezone = "UTC";
  if (auto it = cfg.topic_overrides.find(std::string(topic)); it != cfg.topic_overrides.end()) {
    if (!it->second.source_timezone.empty()) timezone = it->second.source_timezone;
  }
  switch (format) {
    case message_format::datastream:
      return std::make_unique<datastream_decoder>(catalog,
                                                  datastream_options{limits_of(cfg), timezone});
    default:
      throw std::invalid_argument("format " + std::string(to_string(format)) + " for topic " +
                                  std::string(topic) + " is not supported yet");
  }
}

apply_options make_applier_options(const config& cfg) {
  apply_options o;
  o.state_schema = cfg.postgres.state_schema;
  o.connector = cfg.name;
  o.auto_create = cfg.auto_create;
  o.auto_evolve = cfg.auto_evolve;
  o.deletes =
      cfg.deletes.mode == delete_mode::soft ? apply_delete_mode::soft : apply_delete_mode::hard;
  o.delete_enabled = cfg.deletes.enabled;
  o.truncate_enabled = cfg.truncate_enabled;
  o.keyless = cfg.keyless == keyless_mode::dead_letter ? apply_keyless_mode::dead_letter
                                                       : apply_keyless_mode::append;
  o.routing.name_format = cfg.table_name_format;
  o.routing.lower_case = cfg.identifier_case == letter_case::lower;
  for (const auto& [source, table] : cfg.tables) {
    if (!table.target.empty()) o.routing.explicit_targets[source] = table.target;
  }
  if (cfg.errors.retry_max > 0) o.max_attempts = cfg.errors.retry_max;
  if (cfg.errors.retry_backoff_max.count() > 0) o.backoff_max = cfg.errors.retry_backoff_max;
  // column.types are keyed by source table; the applier keys them by target table.
  table_router router(o.routing);
  for (const auto& [source, table] : cfg.tables) {
    if (table.column_types.empty()) continue;
    table_name name;
    const size_t last = source.rfind('.');
    name.table = last == std::string::npos ? source : source.substr(last + 1);
    if (last != std::string::npos) name.schema = source.substr(0, last);
    auto target = router.route(name, "");
    if (!target) continue;  // reported by the applier when the table is routed for real
    auto& types = o.column_types[target->schema + "." + target->name];
    for (const auto& [column, type] : table.column_types) {
      auto col = router.column(column);
      types[col ? *col : column] = type;
    }
  }
  return o;
}

}  // namespace sluice
