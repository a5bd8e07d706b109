#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "schemas/common/decoder.h"
#include "schemas/common/format_detector.h"

namespace sluice {

// Makes one family's decoder; called at most once, when the first message of that family
// arrives. An empty factory means the family is not available here.
using decoder_factory = std::function<std::unique_ptr<decoder>()>;

struct decoder_factories {
  decoder_factory datastream;
  decoder_factory goldengate;
  decoder_factory dsql;
  decoder_factory debezium;
  // The family of a Confluent-framed message, from its registered schema
  // (confluent_family_finder); empty without a registry.
  std::function<result<detected_format>(const raw_message&)> confluent_family;
};

// `format: auto` (SPEC §3): detects each message's envelope family (format_detector, whose
// header lists the precedence) and hands the message to that family's decoder. Decoders are
// made lazily through the factories, so a topic that only carries Debezium never builds the
// others, and this class depends on no family's decoder.
//
//   decode(msg):
//     null value (tombstone)        -> nothing (every family skips tombstones)
//     detect the family             -> unknown: unsupported, naming the top-level keys seen
//                                      a Confluent frame: the family its schema tells
//                                      (no registry, or a schema of neither family:
//                                      unsupported)
//     make the family's decoder if this is its first message (a factory that throws or is
//     empty: unsupported, remembered)
//     decoder.decode(msg, out)
//
// The detector parses the top level once more before the family's decoder parses the
// message: one extra structural pass, the price of per-message detection.
//
// Stage: decode. Lifecycle: one per decode thread, like the decoders it holds.
// Threading: not thread-safe.
class auto_decoder final : public decoder {
 public:
  auto_decoder(decoder_factories factories, decode_limits limits);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;

  // The family of the last message decode() looked at (unknown before the first; confluent
  // for a Confluent frame whose family could not be told).
  detected_format last_format() const { return _last; }

 private:
  struct family {
    decoder_factory make;
    std::unique_ptr<decoder> instance;
    std::optional<error> unavailable;  // why it could not be made, once tried
  };

  result<decoder*> decoder_for(detected_format format);
  error unknown_format() const;

  format_detector _detector;
  std::array<family, 4> _families;  // datastream, goldengate, dsql, debezium
  std::function<result<detected_format>(const raw_message&)> _confluent_family;
  detected_format _last = detected_format::unknown;
};

}  // namespace sluice
