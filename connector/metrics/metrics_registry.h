#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sinks/target_factory.h"

// prometheus-cpp stays out of the pipeline's includes: only connector/metrics/*.cc sees it.
namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace sluice {

// The Prometheus registry and every metric family of SPEC §6, with exactly the names
// dashboards and alerts depend on:
//
//   sluice_consumer_lag_messages{topic,partition}     gauge
//   sluice_replication_lag_seconds{table}             gauge
//   sluice_end_to_end_latency_seconds                 histogram
//   sluice_messages_total{topic,outcome}              counter  decoded | dead_lettered |
//                                                              filtered
//   sluice_changes_total{table,outcome}               counter  applied | collapsed | stale |
//                                                              deleted | csn_conflict
//   sluice_batch_rows                                 histogram
//   sluice_batch_apply_seconds                        histogram
//   sluice_target_errors_total{target,code,action}    counter  code: the SQLSTATE (PostgreSQL),
//                                                              the error number (MariaDB);
//                                                              action: retry | reconnect |
//                                                              in_doubt | reject | refused |
//                                                              fatal
//   sluice_postgres_errors_total{sqlstate}            counter  PostgreSQL only
//   sluice_ddl_failures_total{table}                  counter  batches whose DDL failed there
//   sluice_table_ddl_failed{table}                    gauge    1 while its DDL fails
//   sluice_target_up{target}                          gauge    0 while the target is unreachable
//   sluice_target_reconnects_total{target}            counter
//   sluice_postgres_up                                gauge    PostgreSQL only: sluice_target_up
//   sluice_postgres_reconnects_total                  counter  PostgreSQL only
//   sluice_rebalances_total                           counter
//   sluice_fenced_partitions                          gauge    assigned here, owned by
//                                                              another epoch
//   sluice_pending_chunks                             gauge
//   sluice_tombstones_kept_for_dead_letters           gauge    past the retention, kept
//   sluice_state{state}                               gauge    1 for the current state
//   sluice_degraded{dependency}                       gauge    1 while it holds DEGRADED
//   sluice_members{status}                            gauge    live | stale, by heartbeat
//   sluice_member_heartbeat_age_seconds{worker_id}    gauge    per known member
//   sluice_target_state{state}                        gauge    RUNNING | PAUSED | STOPPED
//
// target is "postgres" or "mariadb" (base/target_names.h). The sluice_postgres_* series are
// the first target's, kept as they were for the dashboards and alerts written against them:
// registered only when the target is PostgreSQL (a MariaDB connector has only sluice_target_*).
//
// Families are created here, filled through the probes (consumer_probe, decode_probe,
// merge_probe, apply_probe, state_probe, chunk_probe, target_probe: STYLE.md #10) and read by
// serialize() for GET /metrics. The accessors below are for those probes only: labelled
// metrics as families (a probe adds and caches its children), unlabelled ones as their
// single series (created here, so they are scraped from the start, as is sluice_state with
// STARTING = 1).
//
// Lifecycle: construct once per process, before the probes, and destroy after them and
// after the HTTP server (probes hold references into the families). Threading: every
// method is thread-safe (prometheus-cpp guards its families; metric values are atomic).
class metrics_registry {
 public:
  // The series of the target the connector writes to (PostgreSQL unless told).
  explicit metrics_registry(target_kind target = target_kind::postgres);
  ~metrics_registry();
  metrics_registry(const metrics_registry&) = delete;
  metrics_registry& operator=(const metrics_registry&) = delete;

  // Every family in the Prometheus text exposition format 0.0.4.
  std::string serialize() const;

  // The upper bounds of sluice_end_to_end_latency_seconds' buckets, ascending (probes that
  // count a batch of observations into buckets themselves use them).
  static const std::vector<double>& end_to_end_buckets();

  target_kind target() const { return _target; }

  prometheus::Family<prometheus::Gauge>& consumer_lag() { return *_consumer_lag; }
  prometheus::Family<prometheus::Gauge>& replication_lag() { return *_replication_lag; }
  prometheus::Histogram& end_to_end_latency() { return *_end_to_end_latency; }
  prometheus::Family<prometheus::Counter>& messages() { return *_messages; }
  prometheus::Family<prometheus::Counter>& changes() { return *_changes; }
  prometheus::Histogram& batch_rows() { return *_batch_rows; }
  prometheus::Histogram& batch_apply_seconds() { return *_batch_apply_seconds; }
  prometheus::Family<prometheus::Counter>& target_errors() { return *_target_errors; }
  // nullptr unless the target is PostgreSQL.
  prometheus::Family<prometheus::Counter>* postgres_errors() { return _postgres_errors; }
  prometheus::Family<prometheus::Counter>& ddl_failures() { return *_ddl_failures; }
  prometheus::Family<prometheus::Gauge>& table_ddl_failed() { return *_table_ddl_failed; }
  prometheus::Gauge& target_up() { return *_target_up; }
  prometheus::Counter& target_reconnects() { return *_target_reconnects; }
  // nullptr unless the target is PostgreSQL.
  prometheus::Gauge* postgres_up() { return _postgres_up; }
  prometheus::Counter* postgres_reconnects() { return _postgres_reconnects; }
  prometheus::Counter& rebalances() { return *_rebalances; }
  prometheus::Gauge& fenced_partitions() { return *_fenced_partitions; }
  prometheus::Gauge& pending_chunks() { return *_pending_chunks; }
  prometheus::Gauge& tombstones_kept() { return *_tombstones_kept; }
  prometheus::Family<prometheus::Gauge>& state() { return *_state; }
  prometheus::Family<prometheus::Gauge>& degraded() { return *_degraded; }
  prometheus::Family<prometheus::Gauge>& members() { return *_members; }
  prometheus::Family<prometheus::Gauge>& member_heartbeat_age() { return *_member_heartbeat_age; }
  prometheus::Family<prometheus::Gauge>& target_state() { return *_target_state; }

 private:
  target_kind _target;
  // The registry owns the families and series below (they point into it).
  std::unique_ptr<prometheus::Registry> _registry;
  prometheus::Family<prometheus::Gauge>* _consumer_lag;
  prometheus::Family<prometheus::Gauge>* _replication_lag;
  prometheus::Histogram* _end_to_end_latency;
  prometheus::Family<prometheus::Counter>* _messages;
  prometheus::Family<prometheus::Counter>* _changes;
  prometheus::Histogram* _batch_rows;
  prometheus::Histogram* _batch_apply_seconds;
  prometheus::Family<prometheus::Counter>* _target_errors;
  prometheus::Family<prometheus::Counter>* _postgres_errors = nullptr;
  prometheus::Family<prometheus::Counter>* _ddl_failures;
  prometheus::Family<prometheus::Gauge>* _table_ddl_failed;
  prometheus::Gauge* _target_up;
  prometheus::Counter* _target_reconnects;
  prometheus::Gauge* _postgres_up = nullptr;
  prometheus::Counter* _postgres_reconnects = nullptr;
  prometheus::Counter* _rebalances;
  prometheus::Gauge* _fenced_partitions;
  prometheus::Gauge* _pending_chunks;
  prometheus::Gauge* _tombstones_kept;
  prometheus::Family<prometheus::Gauge>* _state;
  prometheus::Family<prometheus::Gauge>* _degraded;
  prometheus::Family<prometheus::Gauge>* _members;
  prometheus::Family<prometheus::Gauge>* _member_heartbeat_age;
  prometheus::Family<prometheus::Gauge>* _target_state;
};

}  // namespace sluice
