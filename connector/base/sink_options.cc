#include "connector/base/sink_options.h"

#include <string>

#include "connector/base/target_names.h"
#include "connector/config/transform_types.h"
#include "core/catalog/table_router.h"
#include "sinks/target_factory.h"

namespace sluice {

session_options make_session_options(const config& cfg) {
  session_options o;
  if (cfg.targets_mariadb()) {
    // No keepalive keys: Connector/C sets SO_KEEPALIVE with the system's timing, and the
    // round-trip deadline notices a link that stops forwarding.
    const mariadb_config& m = cfg.mariadb;
    o.dsn = m.dsn;
    o.state_schema = m.state_database;
    o.connect_timeout = m.connect_timeout;
    o.statement_timeout = m.statement_timeout;
    o.lock_timeout = m.lock_timeout;
    o.idle_in_transaction_timeout = m.idle_in_transaction_timeout;
    o.round_trip_timeout = m.round_trip_timeout;
    return o;
  }
  o.dsn = cfg.postgres.dsn;
  o.state_schema = cfg.postgres.state_schema;
  o.connect_timeout = cfg.postgres.connect_timeout;
  o.keepalives_idle = cfg.postgres.keepalives_idle;
  o.keepalives_interval = cfg.postgres.keepalives_interval;
  o.keepalives_count = cfg.postgres.keepalives_count;
  o.tcp_user_timeout = cfg.postgres.tcp_user_timeout;
  o.statement_timeout = cfg.postgres.statement_timeout;
  o.lock_timeout = cfg.postgres.lock_timeout;
  o.idle_in_transaction_timeout = cfg.postgres.idle_in_transaction_timeout;
  o.round_trip_timeout = cfg.postgres.round_trip_timeout;
  return o;
}

std::unique_ptr<sink::target> make_target(const config& cfg) {
  return make_target(target_of(cfg), make_session_options(cfg));
}

retry_policy make_retry_policy(const config& cfg) {
  retry_policy p = retry_policy::waiting_out();
  p.outage_limit = cfg.targets_mariadb() ? cfg.mariadb.retry_timeout : cfg.postgres.retry_timeout;
  // errors.retry.max counts retries, as Connect's max.retries does: 0 is one attempt, no
  // retry (it used to fall back to the default).
  p.statement_attempts = cfg.errors.retry_max + 1;
  if (cfg.errors.retry_backoff_max.count() > 0) p.backoff_max = cfg.errors.retry_backoff_max;
  return p;
}

apply_options make_applier_options(const config& cfg) {
  apply_options o;
  o.chunk_timeout = cfg.chunk_timeout;
  o.chunk_max_bytes = cfg.chunk_max_bytes;
  o.state_schema = cfg.state_schema();
  o.connector = cfg.name;
  o.auto_create = cfg.auto_create;
  o.auto_evolve = cfg.auto_evolve;
  o.auto_evolve_widen = cfg.auto_evolve_widen;
  o.ddl_failure_dead_letters = cfg.ddl_failure == ddl_failure_mode::dead_letter;
  o.ddl_lock_timeout =
      cfg.targets_mariadb() ? cfg.mariadb.ddl_lock_timeout : cfg.postgres.ddl_lock_timeout;
  o.ddl_statement_timeout = cfg.targets_mariadb() ? cfg.mariadb.ddl_statement_timeout
                                                  : cfg.postgres.ddl_statement_timeout;
  o.tables_include = cfg.tables_include;
  o.tables_exclude = cfg.tables_exclude;
  o.deletes =
      cfg.deletes.mode == delete_mode::soft ? apply_delete_mode::soft : apply_delete_mode::hard;
  o.delete_enabled = cfg.deletes.enabled;
  o.update_only = cfg.insert == insert_mode::update;
  o.append_skips_any_conflict = cfg.primary_key_mode == key_mode::kafka;
  o.truncate_enabled = cfg.truncate_enabled;
  o.keyless = cfg.keyless == keyless_mode::dead_letter ? apply_keyless_mode::dead_letter
                                                       : apply_keyless_mode::append;
  o.routing.name_format = cfg.table_name_format;
  o.routing.style = static_cast<name_style>(cfg.name_style);
  o.routing.lower_case = cfg.identifier_case == letter_case::lower;
  for (const auto& [source, table] : cfg.tables) {
    if (!table.target.empty()) o.routing.explicit_targets[source] = table.target;
  }
  for (const std::string& name : cfg.transforms) {
    const auto t = cfg.transform_settings.find(name);
    if (t == cfg.transform_settings.end()) continue;
    const auto kind = transform_kind_of(t->second.type);
    if (!std::holds_alternative<transform_kind>(kind) ||
        std::get<transform_kind>(kind) != transform_kind::by_logical_table_router)
      continue;
    std::string column =
        shard_key_field(t->second.key_enforce_uniqueness, t->second.key_field_name);
    if (!column.empty()) o.shard_columns.push_back(std::move(column));
  }
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
