#include "schemas/common/auto_decoder.h"

#include <exception>

namespace sluice {
namespace {

size_t index_of(detected_format format) {
  switch (format) {
    case detected_format::datastream:
      return 0;
    case detected_format::goldengate:
      return 1;
    case detected_format::dsql:
      return 2;
    case detected_format::debezium:
    case detected_format::confluent:
    case detected_format::unknown:
      break;
  }
  return 3;
}

}  // namespace

auto_decoder::auto_decoder(decoder_factories factories, decode_limits limits)
    : _detector(limits.max_message_bytes) {
  _families[0].make = std::move(factories.datastream);
  _families[1].make = std::move(factories.goldengate);
  _families[2].make = std::move(factories.dsql);
  _families[3].make = std::move(factories.debezium);
  _confluent_family = std::move(factories.confluent_family);
}

std::optional<error> auto_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  auto format = _detector.detect(*msg.value);
  if (!format) return format.err();
  _last = *format;
  if (*format == detected_format::confluent) {
    if (!_confluent_family) {
      return make_error(error_code::unsupported,
                        "a Confluent-framed message (magic byte 0) but no schema.registry.url "
                        "is configured");
    }
    format = _confluent_family(msg);
    if (!format) return format.err();
    if (*format == detected_format::unknown) {
      return make_error(error_code::unsupported,
                        "format: auto: the registered schema of this Confluent-framed message "
                        "describes neither a Debezium envelope nor a Datastream event");
    }
  }
  _last = *format;
  if (*format == detected_format::unknown) return unknown_format();
  auto d = decoder_for(*format);
  if (!d) return d.err();
  return (*d)->decode(msg, out);
}

result<decoder*> auto_decoder::decoder_for(detected_format format) {
  family& f = _families[index_of(format)];
  if (f.instance) return f.instance.get();
  if (f.unavailable) return *f.unavailable;
  const std::string name = to_string(format);
  if (!f.make) {
    f.unavailable = make_error(error_code::unsupported,
                               "format: auto detected " + name + ", which is not available");
    return *f.unavailable;
  }
  try {
    f.instance = f.make();
  } catch (const std::exception& e) {
    // A configuration problem met lazily: reported on each message of the family.
    f.unavailable =
        make_error(error_code::unsupported,
                   "format: auto detected " + name + ", whose decoder cannot be made: " + e.what());
    return *f.unavailable;
  }
  if (!f.instance) {
    f.unavailable = make_error(error_code::unsupported,
                               "format: auto detected " + name + ", which is not available");
    return *f.unavailable;
  }
  return f.instance.get();
}

error auto_decoder::unknown_format() const {
  std::string keys;
  for (std::string_view k : _detector.keys_seen()) {
    if (!keys.empty()) keys += ", ";
    keys += k.size() <= 64 ? std::string(k) : std::string(k.substr(0, 64)) + "...";
  }
  return make_error(
      error_code::unsupported,
      "format: auto cannot tell the envelope family (Datastream, GoldenGate, DSQL, "
      "Debezium) of this message; top-level keys: " +
          (keys.empty() ? std::string("none (the message is not a JSON object)") : keys));
}

}  // namespace sluice
