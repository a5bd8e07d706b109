#pragma once

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
//   a record (one change)                      record_units
//   a value, leaf, item or field it produces   value_units + its text's bytes
//   a value it walks over without keeping      1 (a step of work, the CPU bound of skip())
//
// and stops at the first charge over allowed() = units_per_byte × input + free_units,
// where input counts the message's bytes and what its compressed blocks inflated to. Real
// events use a few units a byte (docs/avro.md, "Bounds"): the bound is far above them and
// far below a quadratic blow-up. The error (too_large) names it.
//
// Who charges it: the Avro readers (avro_value_reader for Datastream, debezium_avro_reader)
// for what they read and walk, and the Debezium decoder for the values it makes, JSON and
// Avro alike (a logical type stretches a short token: a Decimal of scale 16383 from one byte,
// Bits of length 65536). The other JSON decoders need none: each value they produce is a
// copy of its own text or a fixed-size rendering of it (a timestamp), one message is one
// change (a GoldenGate record: one change or one catalog update), and simdjson bounds the
// nesting; fuzz/README.md checks that output bound for every target.
//
// Lifecycle: one per reader, start()ed for each message. Threading: as its reader.
class decode_budget {
 public:
  static constexpr uint64_t units_per_byte = 64;
  static constexpr uint64_t free_units = 64 << 10;
  static constexpr uint64_t record_units = 256;
  static constexpr uint64_t value_units = 32;

  // A new message of `bytes` (a container's, a record body's).
  void start(size_t bytes) {
    _input = bytes;
    _allowed = free_units + units_per_byte * _input;
    _used = 0;
  }
  // The input grew: a compressed block inflated to `bytes` more of records.
  void add_input(size_t bytes) {
    _input += bytes;
    _allowed = free_units + units_per_byte * _input;
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
  uint64_t _input = 0;
  uint64_t _allowed = free_units;
  uint64_t _used = 0;
};

}  // namespace sluice
