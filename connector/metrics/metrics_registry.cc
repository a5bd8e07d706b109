#include "connector/metrics/metrics_registry.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "connector/base/target_names.h"
#include "connector/metrics/state_probe.h"

namespace sluice {
namespace {

// Kafka timestamp → commit: sub-second when caught up, hours while catching up.
const prometheus::Histogram::BucketBoundaries k_latency_buckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
// Keys written per batch; batch.size defaults to 10000.
const prometheus::Histogram::BucketBoundaries k_rows_buckets = {
    1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000};
// One target transaction, retries included.
const prometheus::Histogram::BucketBoundaries k_apply_buckets = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

}  // namespace

const std::vector<double>& metrics_registry::end_to_end_buckets() {
  return k_latency_buckets;
}

metrics_registry::metrics_registry(target_kind target)
    : _target(target), _registry(std::make_unique<prometheus::Registry>()) {
  prometheus::Registry& r = *_registry;
  const bool postgres = target == target_kind::postgres;
  const std::string display(target_display_name(target));
  const prometheus::Labels this_target = {{"target", std::string(target_id(target))}};
  _consumer_lag = &prometheus::BuildGauge()
                       .Name("sluice_consumer_lag_messages")
                       .Help("High watermark minus the next offset committed in " + display + ".")
                       .Register(r);
  _replication_lag =
      &prometheus::BuildGauge()
           .Name("sluice_replication_lag_seconds")
           .Help(
               "Now minus the source timestamp of the newest applied change; 0 when nothing "
               "is pending.")
           .Register(r);
  _end_to_end_latency = &prometheus::BuildHistogram()
                             .Name("sluice_end_to_end_latency_seconds")
                             .Help("Kafka message timestamp to " + display + " commit.")
                             .Register(r)
                             .Add({}, k_latency_buckets);
  _messages = &prometheus::BuildCounter()
                   .Name("sluice_messages_total")
                   .Help("Kafka messages by outcome (decoded, dead_lettered, filtered).")
                   .Register(r);
  _changes =
      &prometheus::BuildCounter()
           .Name("sluice_changes_total")
           .Help("Changes by outcome (applied, collapsed, stale, deleted, csn_conflict, missing).")
           .Register(r);
  _batch_rows = &prometheus::BuildHistogram()
                     .Name("sluice_batch_rows")
                     .Help("Rows written per batch transaction.")
                     .Register(r)
                     .Add({}, k_rows_buckets);
  _batch_apply_seconds = &prometheus::BuildHistogram()
                              .Name("sluice_batch_apply_seconds")
                              .Help("Duration of one batch transaction, retries included.")
                              .Register(r)
                              .Add({}, k_apply_buckets);
  _target_errors = &prometheus::BuildCounter()
                        .Name("sluice_target_errors_total")
                        .Help(
                            "Errors of the target database by code (the SQLSTATE, or MariaDB's "
                            "error number) and what sluice did about them "
                            "(retry, reconnect, in_doubt, reject, refused, fatal).")
                        .Register(r);
  if (postgres) {
    _postgres_errors = &prometheus::BuildCounter()
                            .Name("sluice_postgres_errors_total")
                            .Help("PostgreSQL errors by SQLSTATE.")
                            .Register(r);
  }
  _ddl_failures = &prometheus::BuildCounter()
                       .Name("sluice_ddl_failures_total")
                       .Help(
                           "Batches whose auto-create or auto-evolve of this target table "
                           "failed (its rows went to the dead letters, kind ddl_failed).")
                       .Register(r);
  _table_ddl_failed = &prometheus::BuildGauge()
                           .Name("sluice_table_ddl_failed")
                           .Help(
                               "1 while this target table's DDL fails (until rows are "
                               "written to it again).")
                           .Register(r);
  _target_up = &prometheus::BuildGauge()
                    .Name("sluice_target_up")
                    .Help(
                        "1 while the target database answers sluice's sessions, 0 while one of "
                        "them waits out an outage.")
                    .Register(r)
                    .Add(this_target);
  _target_up->Set(1);
  _target_reconnects = &prometheus::BuildCounter()
                            .Name("sluice_target_reconnects_total")
                            .Help("Target database connections opened again after one was lost.")
                            .Register(r)
                            .Add(this_target);
  if (postgres) {
    _postgres_up = &prometheus::BuildGauge()
                        .Name("sluice_postgres_up")
                        .Help(
                            "1 while PostgreSQL answers sluice's sessions, 0 while one of them "
                            "waits out an outage.")
                        .Register(r)
                        .Add({});
    _postgres_up->Set(1);
    _postgres_reconnects = &prometheus::BuildCounter()
                                .Name("sluice_postgres_reconnects_total")
                                .Help("PostgreSQL connections opened again after one was lost.")
                                .Register(r)
                                .Add({});
  }
  _rebalances = &prometheus::BuildCounter()
                     .Name("sluice_rebalances_total")
                     .Help("Consumer group rebalances (assignments and revocations).")
                     .Register(r)
                     .Add({});
  _fenced_partitions = &prometheus::BuildGauge()
                            .Name("sluice_fenced_partitions")
                            .Help(
                                "Partitions the group assigns to this member whose offsets "
                                "another owner's epoch holds: not consumed here until "
                                "claimed again (after a grace, while still assigned).")
                            .Register(r)
                            .Add({});
  _pending_chunks = &prometheus::BuildGauge()
                         .Name("sluice_pending_chunks")
                         .Help("Chunks of chunked records waiting for their siblings.")
                         .Register(r)
                         .Add({});
  _tombstones_kept =
      &prometheus::BuildGauge()
           .Name("sluice_tombstones_kept_for_dead_letters")
           .Help(
               "Tombstones past tombstone.retention kept because a stored dead letter may "
               "replay an older change of their table.")
           .Register(r)
           .Add({});
  _state = &prometheus::BuildGauge()
                .Name("sluice_state")
                .Help("1 for the connector's current state, 0 for the others.")
                .Register(r);
  _degraded = &prometheus::BuildGauge()
                   .Name("sluice_degraded")
                   .Help(
                       "1 while this dependency holds the connector DEGRADED (the target, "
                       "postgres or mariadb, and its statements, \"postgres statements\"; "
                       "kafka, dead-letter queue, offsets, schema registry), 0 once it no "
                       "longer does.")
                   .Register(r);
  _members = &prometheus::BuildGauge()
                  .Name("sluice_members")
                  .Help(
                      "Members of the connector this member sees in the control state, by "
                      "heartbeat: live (within 10 s) or stale (silent since; forgotten after "
                      "15 minutes).")
                  .Register(r);
  _member_heartbeat_age =
      &prometheus::BuildGauge()
           .Name("sluice_member_heartbeat_age_seconds")
           .Help("Seconds since each known member's last heartbeat, as this member read it.")
           .Register(r);
  _target_state = &prometheus::BuildGauge()
                       .Name("sluice_target_state")
                       .Help(
                           "1 for the target state the operator set for every member "
                           "(RUNNING, PAUSED, STOPPED), 0 for the others.")
                       .Register(r);

  for (connector_state s : state_probe::states) {
    _state->Add({{"state", to_string(s)}}).Set(s == connector_state::starting ? 1 : 0);
  }
}

metrics_registry::~metrics_registry() = default;

std::string metrics_registry::serialize() const {
  return prometheus::TextSerializer().Serialize(_registry->Collect());
}

}  // namespace sluice
