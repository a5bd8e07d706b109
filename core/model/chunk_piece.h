#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/change.h"
#include "core/model/raw_message.h"
#include "core/model/result.h"

namespace sluice {

// One piece of a chunked record (Aurora DSQL CDC, SPEC §3): an image too big for one message
// arrives as a principal record naming its chunk (chunk_id, total_fragments, crc32c) plus
// fragments (chunk_id, index, data), on any partition, in any order, maybe twice. The decoder
// turns each into a piece; the sink keeps pieces in <state schema>.pending_fragments until a
// chunk has them all, then asks a chunk_decoder for the change (SPEC §4 "Batch transaction").
//
// Pieces own their bytes: they outlive the Kafka batch that brought them.
struct chunk_piece {
  static constexpr int32_t principal = -1;

  std::string chunk_id;
  int32_t index = principal;    // principal, or the fragment's 0-based position
  int32_t total_fragments = 0;  // principal only: how many fragments make the image
  uint32_t crc32c = 0;          // principal only: CRC32C of the reassembled image text
  // principal: the record's bytes as consumed (decoded again once complete);
  // fragment: its `data` text, unescaped (a segment of the image's JSON text).
  std::string payload;
  message_origin origin;

  bool is_principal() const { return index == principal; }
};

// Turns a principal record whose chunk is complete into its change, given the reassembled
// image text (CRC already verified), as the prepare stage would have made it: transforms and
// field rules applied. Implemented by the connector around the decoder of the family that
// chunks (schemas/dsql), handed to the sink, so that sinks never see schemas nor transforms.
//
// Lifecycle: one per apply lane. Threading: not thread-safe (it owns a parser).
class chunk_decoder {
 public:
  virtual ~chunk_decoder() = default;
  // principal.value is the principal record; image the reassembled JSON text of the image
  // it names. Bad input is an error value, as for decoder::decode.
  virtual result<change> decode_chunked(const raw_message& principal, std::string_view image) = 0;
  // The topic a table that came on `topic` is routed by (RegexRouter renames it; the change
  // keeps the one it came on, for its dead letters). Valid while the decoder lives.
  virtual std::string_view routed_topic(std::string_view topic) { return topic; }
};

}  // namespace sluice
