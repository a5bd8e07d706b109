#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/model/result.h"

namespace sluice {

// What decoding one message may produce and walk, in proportion to its bytes once
// decompressed (SPEC §3 and §8: a small message never decodes into a huge one).
//
// A decoder that builds values from lengths and counts it reads (Avro: an array block says
// "2^40 items", and items of a type that encodes to 0 bytes — null, an empty record, fixed(0)
// — cost no input at all) charges what it makes and walks, in units of about a byte of
// memory:
//
//   a record (one change)                           record_units
//   a value, leaf or column it produces             value_units + its text's bytes
//   an array item, a record or array in JSON text   1 or 2 (its punctuation), a field name
//                                                   its length + 4
//   a value it walks over without keeping           1 (a step of work: the CPU of skip())
//
// and stops at the first charge over allowed() = min(units_per_byte × input + free_units,
// cap_per_message_byte × max_message_bytes), input counting the message's bytes and what
// its compressed blocks inflated to. The cap keeps a message that inflates a thousandfold
// (deflate) from earning a thousandfold budget: a message decodes into at most 8 × the
// message limit (128 Mi units by default), whatever it inflates to — room for a full 16 MiB
// of small events (5 units a byte), not for a thousandfold stretch of them. Real events use one or
// two units a byte (docs/avro.md, "Bounds per message"): the bound is far above them and far
// below any blow-up. The error (too_large) names it.
//
// Who charges it: each reader owns the budget of the message it reads — the Datastream Avro
// reader (through avro_value_reader, which it hands the budget to), the Debezium Avro reader,
// and the Debezium decoder for the values it makes, JSON and Avro alike (a logical type
// stretches a short token: a Decimal of scale 16383 from one byte, Bits of length 65536).
// The other JSON decoders need none: each value they produce is a copy of its own text or a
// fixed-size rendering of it (a timestamp), one message is one change (a GoldenGate record:
// one change, catalog update or DDL record), and simdjson bounds the nesting;
// docs/formats.md says what bounds each, and every fuzz target checks it (fuzz/README.md).
//
// A batch (batch.max.bytes of messages) decodes into at most the sum of its messages' bounds.
//
// Lifecycle: one per reader, start()ed for each message. Threading: as its reader.
class decode_budget {
 public:
  static constexpr uint64_t units_per_byte = 64;
  static constexpr uint64_t free_units = 16 << 10;
  static constexpr uint64_t cap_per_message_byte = 8;
  static constexpr uint64_t record_units = 256;
  static constexpr uint64_t value_units = 32;

  explicit decode_budget(size_t max_message_bytes)
      : _cap(cap_per_message_byte * max_message_bytes) {}

  // A new message of `bytes` (a container's, a record body's).
  void start(size_t bytes) {
    _input = bytes;
    _used = 0;
    _allowed = allowance();
  }
  // The input grew: a compressed block inflated to `bytes` more of records.
  void add_input(size_t bytes) {
    _input += bytes;
    _allowed = allowance();
  }

  // Adds units to what the message used; false once that is over allowed() (and from then on).
  // On the hot path (each value of each record): an add and a compare.
  bool charge(uint64_t units) {
    _used += units;
    return _used <= _allowed;
  }
  bool charge_value(size_t text_bytes) { return charge(value_units + text_bytes); }

  uint64_t allowed() const { return _allowed; }
  uint64_t used() const { return _used; }
  uint64_t input() const { return _input; }

  // The too_large error that names the bound and the input it was computed from.
  error exceeded() const;

 private:
  uint64_t allowance() const {
    return std::min(free_units + units_per_byte * _input, std::max(_cap, free_units));
  }

  uint64_t _cap;
  uint64_t _input = 0;
  uint64_t _allowed = free_units;
  uint64_t _used = 0;
};

}  // namespace sluice
