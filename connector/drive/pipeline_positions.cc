// The pipeline's positions the log no longer holds (pipeline.h): librdkafka's own reset is off
// (kafka_consumer sets auto.offset.reset=error), so a stored offset that retention or
// DeleteRecords has moved the log's start past is reported here instead of being skipped
// silently, and offsets.out.of.range decides: fail stops that partition, naming the gap
// (the connector DEGRADED, the others going on); earliest or latest seek past the gap,
// logging what was skipped.
#include <chrono>
#include <string>

#include "connector/base/log.h"
#include "connector/drive/pipeline.h"
#include "connector/source/kafka_consumer.h"

namespace sluice {
namespace {

std::string label(const topic_partition& tp) {
  return tp.topic + "[" + std::to_string(tp.partition.value()) + "]";
}

}  // namespace

void pipeline::handle_out_of_range() {
  for (const kafka_consumer::out_of_range& e : _consumer->take_out_of_range()) {
    const topic_partition& tp = e.partition;
    if (!_partitions.owns(tp)) continue;  // revoked meanwhile: its next owner meets it
    const auto marks = _consumer->query_watermarks(tp, std::chrono::seconds(5));
    std::string gap =
        label(tp) + ": offset " + std::to_string(e.offset) + " is no longer in the log";
    if (marks) {
      gap += " (it holds " + std::to_string(marks->first) + "–" +
             std::to_string(marks->second - 1) + ")";
    }
    const out_of_range_mode mode = _config.offsets_out_of_range;
    if (mode == out_of_range_mode::fail || !marks) {
      const std::string why =
          gap +
          (marks && e.offset < marks->first
               ? ": offsets " + std::to_string(e.offset) + "–" + std::to_string(marks->first - 1) +
                     " were deleted before sluice read them"
               : std::string()) +
          "; partition stopped (offsets.out.of.range: fail). To go on, set "
          "offsets.out.of.range to earliest or latest, or `sluice offsets reset` it, and restart";
      _consumer->pause({tp});
      _stopped[tp] = why;
      SLUICE_LOG(error, "pipeline", why);
      show_stopped();
      continue;
    }
    const int64_t to = mode == out_of_range_mode::earliest ? marks->first : marks->second;
    if (to > e.offset) {
      SLUICE_LOG(warn, "pipeline",
                 gap << ": skipping offsets " << e.offset << "–" << to - 1
                     << ", which sluice never read (offsets.out.of.range: " << to_string(mode)
                     << ")");
    } else {
      SLUICE_LOG(warn, "pipeline",
                 gap << ": going on from " << to << " (offsets.out.of.range: " << to_string(mode)
                     << "); offsets " << to << "–" << e.offset - 1 << " may be read again");
    }
    _consumer->restart_at(tp, to);
  }
}

void pipeline::forget_stopped(const std::vector<topic_partition>& parts) {
  bool changed = false;
  for (const topic_partition& tp : parts)
    changed |= _stopped.erase(tp) > 0;
  if (changed) show_stopped();
}

void pipeline::show_stopped() {
  // Every stopped partition names its gap; none: no longer DEGRADED for this.
  std::string why;
  for (const auto& [tp, gap] : _stopped)
    why += (why.empty() ? "" : "; ") + gap;
  _state.degrade("offsets", why);
}

}  // namespace sluice
