#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "sinks/postgres/batch_applier.h"
#include "sinks/postgres/partition_owner.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state_janitor.h"
#include "sinks/postgres/state_reader.h"

namespace sluice {

// Quick retries for tests; an outage or a transient error is given up after a while instead of
// waited out forever, so that a broken test database fails the test rather than hanging it.
inline retry_policy test_policy(int statement_attempts = 5, std::chrono::milliseconds backoff_max =
                                                                std::chrono::milliseconds(50)) {
  retry_policy p;
  p.outage_limit = std::chrono::seconds(30);
  p.statement_attempts = statement_attempts;
  p.backoff_initial = std::chrono::milliseconds(5);
  p.backoff_max = backoff_max;
  p.stall_after_attempts = false;  // a transient error past the attempts is thrown
  return p;
}

// Every role of the sink on one session, as the sink tests drive them: the batch applier,
// the partition owner, the state reader and the janitor.
class test_sink {
 public:
  test_sink(const std::string& dsn, apply_options options, retry_policy policy = test_policy())
      : session(session_options_for(dsn, options), policy, "test"),
        applier(session, std::move(options)),
        owner(session, applier.options().connector),
        reader(session, applier.options().connector),
        janitor(session) {}

  // A batch that must commit (the test fails with the reason otherwise).
  apply_stats apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters,
                    const std::vector<partition_progress>& progress,
                    const batch_metadata& metadata = {}) {
    apply_result r = applier.apply(batch, dead_letters, progress, metadata);
    if (r.outcome != apply_outcome::committed) {
      throw std::runtime_error("batch not committed: " + r.why);
    }
    return std::move(r.stats);
  }
  apply_result try_apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters,
                         const std::vector<partition_progress>& progress,
                         const batch_metadata& metadata = {}) {
    return applier.apply(batch, dead_letters, progress, metadata);
  }

  std::vector<claimed_partition> claim(const std::string& topic,
                                       const std::vector<partition_id>& partitions) {
    return owner.claim(topic, partitions).value();
  }
  std::vector<stored_offset> read_offsets() { return reader.read_offsets(); }
  std::vector<table_progress> read_table_progress() { return reader.read_table_progress(); }
  std::vector<catalog_update> load_catalog() { return reader.load_catalog().value(); }
  size_t pending_chunks() { return reader.pending_chunks().value(); }
  size_t expire_tombstones(std::chrono::seconds retention) {
    return janitor.expire_tombstones(retention).value().expired;
  }
  sink::tombstone_expiry expire_tombstones_in_full(std::chrono::seconds retention) {
    return janitor.expire_tombstones(retention).value();
  }
  // Connects and migrates the state schema now.
  void start() {
    session.run([](pqxx::connection&) { return true; });
  }
  const pg_error_class& last_error() const { return session.last_error(); }
  void set_dead_letter_sink(batch_applier::dead_letter_sink sink) {
    applier.set_dead_letter_sink(std::move(sink));
  }

  pg_session session;
  batch_applier applier;
  partition_owner owner;
  state_reader reader;
  state_janitor janitor;

 private:
  static session_options session_options_for(const std::string& dsn, const apply_options& o) {
    session_options s;
    s.dsn = dsn;
    s.state_schema = o.state_schema;
    return s;
  }
};

}  // namespace sluice
