// The pipeline's view of the brokers and of how far behind it is (pipeline.h): the broker's
// reachability as the "kafka" DEGRADED reason, the consumer lag of every partition it owns or
// is fenced from, and the replication lag reset once everything is applied. Run on the
// consumer thread, once a second and on the loop after each commit (the gauges are true right
// after a batch commits).
#include <algorithm>
#include <chrono>
#include <mutex>

#include "connector/drive/pipeline.h"
#include "connector/source/kafka_consumer.h"

namespace sluice {

void pipeline::refresh_watermarks() {
  // The broker: librdkafka reconnects by itself; meanwhile the connector shows DEGRADED.
  _consumer->probe_brokers(std::chrono::milliseconds(500));
  _state.degrade("kafka", _consumer->brokers_down() ? "Kafka brokers unreachable" : "");
  const bool idle = refresh_lag();
  // Lanes count pending chunks inside their transactions and may report in either order: one
  // that counted before another's completing batch committed can report last. Idle, count
  // again (only while the gauge shows any: nothing to correct otherwise), on the partition
  // owner's thread.
  if (idle && _chunk_probe.pending() > 0) _owner->count_pending_chunks();
}

bool pipeline::refresh_lag() {
  _lag_stale = false;
  bool caught_up = true;
  for (const auto& [tp, e] : _partitions.snapshot()) {
    // librdkafka's cached watermark (no round trip), as of the last fetch response.
    const int64_t hw = _consumer->high_watermark(tp);
    _partitions.high_watermark(tp, hw);
    if (hw < 0) continue;
    const int64_t lag = hw - std::max<int64_t>(0, e.committed.value());
    _consumer_probe.lag(tp.topic, tp.partition, lag);
    if (lag > 0) caught_up = false;
  }
  // Fenced, still assigned: nothing is consumed of them, and their lag says so.
  for (const auto& [tp, f] : _fenced) {
    const int64_t hw = _consumer->high_watermark(tp);
    if (hw < 0) continue;
    const int64_t lag = hw - std::max<int64_t>(0, f.committed);
    _consumer_probe.lag(tp.topic, tp.partition, lag);
    if (lag > 0) caught_up = false;
  }
  bool idle;
  {
    std::lock_guard lock(_idle_mutex);
    idle = _in_flight == 0 && _batch.empty();
  }
  // Idle tables show no growing lag: replication lag is measured on what is pending.
  if (caught_up && idle) _apply_probe.caught_up();
  return idle;
}

}  // namespace sluice
