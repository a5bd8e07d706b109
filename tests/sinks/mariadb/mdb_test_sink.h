#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "sinks/mariadb/batch_applier.h"
#include "sinks/mariadb/partition_owner.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state_janitor.h"
#include "sinks/mariadb/state_reader.h"

namespace sluice::testing {

// Quick retries for tests (tests/sinks/test_sink.h's test_policy, for MariaDB): an outage or a
// transient error is given up after a while instead of waited out forever, so that a broken
// test server fails the test rather than hanging it.
inline retry_policy mdb_test_policy(
    int statement_attempts = 5,
    std::chrono::milliseconds backoff_max = std::chrono::milliseconds(50)) {
  retry_policy p;
  p.outage_limit = std::chrono::seconds(30);
  p.statement_attempts = statement_attempts;
  p.backoff_initial = std::chrono::milliseconds(5);
  p.backoff_max = backoff_max;
  p.stall_after_attempts = false;  // a transient error past the attempts is thrown
  return p;
}

// Every role of the MariaDB sink on one session, as the sink tests drive them (the model:
// tests/sinks/test_sink.h): the batch applier, the partition owner, the state reader and the
// janitor. Lifecycle: no I/O until the first call. Threading: one thread at a time.
class mdb_test_sink {
 public:
  mdb_test_sink(const std::string& dsn, apply_options options,
                retry_policy policy = mdb_test_policy(), std::string role = "test")
      : connector(options.connector),
        session(session_options_for(dsn, options), policy, std::move(role)),
        applier(session, std::move(options)),
        owner(session, connector),
        reader(session, connector),
        janitor(session) {}

  // A batch that must commit (the test fails with the reason otherwise).
  apply_stats apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters = {},
                    const std::vector<partition_progress>& progress = {},
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
  size_t expire_tombstones(std::chrono::seconds retention) {
    return janitor.expire_tombstones(retention).value().expired;
  }
  // Connects and migrates the state database now.
  void start() {
    session.run([](mdb::connection&) { return true; });
  }
  const target_error_class& last_error() const { return session.last_error(); }

  std::string connector;  // first: the roles below are made with it
  mdb::mdb_session session;
  mdb::batch_applier applier;
  mdb::partition_owner owner;
  mdb::state_reader reader;
  mdb::state_janitor janitor;

 private:
  static session_options session_options_for(const std::string& dsn, const apply_options& o) {
    session_options s;
    s.dsn = dsn;
    s.state_schema = o.state_schema;
    return s;
  }
};

}  // namespace sluice::testing
