#include "connector/prepare/stage_factory.h"
#include "connector/base/sink_options.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "connector/prepare/change_rules.h"
#include "connector/prepare/target_key_lookup.h"
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
      : _target(make_target(cfg)),
        _keys(*_target, make_retry_policy(cfg), make_applier_options(cfg).routing, observer,
              std::move(keep_going), "chunk-key-lookup-" + std::to_string(index)),
        _decoder(_catalog, options),
        _rules(cfg) {
    for (const auto& [source, table] : cfg.tables) {
      if (!table.primary_key_fields.empty()) {
        _catalog.configure_key(source, table.primary_key_fields);
      }
    }
    _keys.prepare_as(cfg);
    _catalog.set_key_resolver(
        [this](const table_name& source, std::string_view topic) { return _keys(source, topic); });
  }

  // The preparer's rules (change_rules.h), on the change a chunk completes (the preparer saw
  // only its pieces): a rule that cannot apply is the chunk's dead letter.
  result<change> decode_chunked(const raw_message& principal, std::string_view image) override {
    result<change> decoded = _decoder.decode_chunked(principal, image);
    if (!decoded || _rules.none()) return decoded;
    auto done = _rules.apply(*decoded, principal);
    if (auto* why = std::get_if<std::string>(&done))
      return make_error(error_code::field_rule, *why);
    // The pieces' offsets have moved on already: a chunk's change a Filter drops is kept as a
    // dead letter rather than lost without a trace.
    if (std::get<change_transform::outcome>(done) == change_transform::outcome::drop)
      return make_error(error_code::field_rule,
                        "a transform's Filter dropped this chunked "
                        "change (chunked changes are not filtered)");
    return decoded;
  }
  std::string_view routed_topic(std::string_view topic) override { return _rules.topic(topic); }

 private:
  std::unique_ptr<sink::target> _target;  // the key lookup's
  table_catalog _catalog;
  target_key_lookup _keys;
  dsql_decoder _decoder;
  change_rules _rules;
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

}  // namespace sluice
