#include "connector/runtime/stage_factory.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "connector/runtime/target_key_lookup.h"
#include "schemas/common/auto_decoder.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/dsql/dsql_decoder.h"
#include "schemas/goldengate/goldengate_decoder.h"
#include "schemas/registry/confluent_family.h"

namespace sluice {
namespace {

decode_limits limits_of(const config& cfg) {
  decode_limits l;
  l.max_message_bytes = cfg.limits.max_message_bytes;
  l.max_depth = cfg.limits.max_depth;
  l.max_columns = cfg.limits.max_columns;
  return l;
}

// format: auto — each family's decoder is made by make_decoder() itself, as if the topic
// were configured with that family, when the family's first message arrives.
std::unique_ptr<decoder> make_auto_decoder(const config& cfg, std::string_view topic,
                                           table_catalog& catalog,
                                           std::shared_ptr<schema_source> registry) {
  const auto factory = [&cfg, &catalog, topic = std::string(topic),
                        registry](message_format family) {
    return [&cfg, &catalog, topic, family, registry]() {
      config as_family = cfg;
      as_family.topic_overrides[topic].format = family;
      return make_decoder(as_family, topic, catalog, registry);
    };
  };
  decoder_factories factories;
  factories.datastream = factory(message_format::datastream);
  factories.goldengate = factory(message_format::goldengate);
  factories.dsql = factory(message_format::dsql);
  factories.debezium = factory(message_format::debezium);
  if (registry) {
    auto finder = std::make_shared<confluent_family_finder>(registry, cfg.limits.max_depth);
    factories.confluent_family = [finder](const raw_message& m) { return finder->family(m); };
  }
  return std::make_unique<auto_decoder>(std::move(factories), limits_of(cfg));
}

}  // namespace

std::unique_ptr<decoder> make_decoder(const config& cfg, std::string_view topic,
                                      table_catalog& catalog,
                                      std::shared_ptr<schema_source> registry) {
  const message_format format = cfg.format_for(topic);
  std::string timezone = "UTC";
  if (auto it = cfg.topic_overrides.find(std::string(topic)); it != cfg.topic_overrides.end()) {
    if (!it->second.source_timezone.empty()) timezone = it->second.source_timezone;
  }
  switch (format) {
    case message_format::datastream:
      return std::make_unique<datastream_decoder>(
          catalog, datastream_options{limits_of(cfg), timezone, std::move(registry)});
    case message_format::goldengate: {
      goldengate_options options;
      options.limits = limits_of(cfg);
      options.source_timezone = timezone;
      if (auto it = cfg.topic_overrides.find(std::string(topic)); it != cfg.topic_overrides.end()) {
        options.field_names = it->second.field_names;
        options.op_names = it->second.op_names;
        options.default_key_columns = it->second.primary_key_fields;
      }
      if (auto err = goldengate_decoder::check(options)) {
        throw std::invalid_argument("topic " + std::string(topic) + ": " + err->message);
      }
      return std::make_unique<goldengate_decoder>(catalog, std::move(options));
    }
    case message_format::dsql: {
      dsql_options options;
      options.limits = limits_of(cfg);
      return std::make_unique<dsql_decoder>(catalog, std::move(options));
    }
    case message_format::debezium: {
      debezium_options options;
      options.limits = limits_of(cfg);
      options.registry = std::move(registry);
      return std::make_unique<debezium_decoder>(catalog, std::move(options));
    }
    case message_format::auto_detect:
      // Options are checked here, at start-up; the family decoders are made lazily.
      if (auto err =
              datastream_decoder::check(datastream_options{limits_of(cfg), timezone, nullptr})) {
        throw std::invalid_argument("topic " + std::string(topic) + ": " + err->message);
      }
      return make_auto_decoder(cfg, topic, catalog, std::move(registry));
    default:
      throw std::invalid_argument("format " + std::string(to_string(format)) + " for topic " +
                                  std::string(topic) + " is not supported yet");
  }
}

namespace {

// A DSQL decoder with the catalog it reads and learns into.
class owning_chunk_decoder : public chunk_decoder {
 public:
  owning_chunk_decoder(const config& cfg, const dsql_options& options, session_observer* observer,
                       std::function<bool()> keep_going, int index)
      : _keys(make_session_options(cfg), make_retry_policy(cfg), make_applier_options(cfg).routing,
              observer, std::move(keep_going), "chunk-key-lookup-" + std::to_string(index)),
        _decoder(_catalog, options) {
    for (const auto& [source, table] : cfg.tables) {
      if (!table.primary_key_fields.empty()) {
        _catalog.configure_key(source, table.primary_key_fields);
      }
    }
    _catalog.set_key_resolver(
        [this](const table_name& source, std::string_view topic) { return _keys(source, topic); });
  }

  result<change> decode_chunked(const raw_message& principal, std::string_view image) override {
    return _decoder.decode_chunked(principal, image);
  }

 private:
  table_catalog _catalog;
  target_key_lookup _keys;
  dsql_decoder _decoder;
};

}  // namespace

std::function<std::unique_ptr<chunk_decoder>(std::function<bool()>)> chunk_decoder_factory(
    const config& cfg, session_observer* observer) {
  auto made = std::make_shared<std::atomic<int>>(0);  // names each decoder's session apart
  return [&cfg, observer, made, options = dsql_options{limits_of(cfg)}](
             std::function<bool()> keep_going) -> std::unique_ptr<chunk_decoder> {
    return std::make_unique<owning_chunk_decoder>(cfg, options, observer, std::move(keep_going),
                                                  (*made)++);
  };
}

session_options make_session_options(const config& cfg) {
  session_options o;
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

retry_policy make_retry_policy(const config& cfg) {
  retry_policy p = retry_policy::waiting_out();
  p.outage_limit = cfg.postgres.retry_timeout;
  if (cfg.errors.retry_max > 0) p.statement_attempts = cfg.errors.retry_max;
  if (cfg.errors.retry_backoff_max.count() > 0) p.backoff_max = cfg.errors.retry_backoff_max;
  return p;
}

apply_options make_applier_options(const config& cfg) {
  apply_options o;
  o.chunk_timeout = cfg.chunk_timeout;
  o.chunk_max_bytes = cfg.chunk_max_bytes;
  o.state_schema = cfg.postgres.state_schema;
  o.connector = cfg.name;
  o.auto_create = cfg.auto_create;
  o.auto_evolve = cfg.auto_evolve;
  o.auto_evolve_widen = cfg.auto_evolve_widen;
  o.ddl_failure_dead_letters = cfg.ddl_failure == ddl_failure_mode::dead_letter;
  o.tables_include = cfg.tables_include;
  o.tables_exclude = cfg.tables_exclude;
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
