#include "sinks/mariadb/batch_applier.h"

#include <set>
#include <stdexcept>

#include "sinks/mariadb/plan/mdb_rules.h"
#include "sinks/mariadb/plan/value_fit.h"
#include "sinks/mariadb/session/mdb_error_policy.h"
#include "sinks/mariadb/session/mdb_transaction.h"
#include "sinks/mariadb/state/replay_settlement.h"
#include "sinks/plan/change_dead_letter.h"

namespace sluice::mdb {
namespace {

// Thrown by the DDL's wait when the apply's keep-going test says stop.
struct batch_abandoned {};

std::string label(const target_table& t) {
  return t.schema + "." + t.name;
}

void check_progress(const std::vector<partition_progress>& progress) {
  std::set<std::pair<std::string, int32_t>> seen;
  for (const partition_progress& p : progress) {
    if (!seen.emplace(p.topic, p.partition.value()).second) {
      throw std::invalid_argument("partition " + p.topic + "[" +
                                  std::to_string(p.partition.value()) +
                                  "] appears twice in one batch's progress");
    }
  }
}

}  // namespace

batch_applier::batch_applier(mdb_session& session, apply_options options)
    : _session(session),
      _options(std::move(options)),
      _planner(_options, mariadb_target_rules(_options.state_schema)),
      _ddl(_options),  // ddl_wait_limit 0: a metadata lock is waited out, DEGRADED meanwhile
      _writer(_options, _session.schema().table("tombstones")),
      _locks(_session.schema(),
             _options.max_key_locks ? _options.max_key_locks : key_lock_set::default_max_keys),
      _offsets(_session.schema(), _options.connector),
      _progress(_session.schema(), _options.connector),
      _dead_letters(_session.schema(), _options.connector),
      _catalog(_session.schema(), _options.connector),
      _routes(_session.schema(), _options.connector),
      _chunks(_session.schema(), _options.connector, _options.chunk_timeout,
              _options.chunk_max_bytes) {
  if (_options.connector.empty()) throw std::invalid_argument("apply_options.connector is empty");
  // A new connection has no temporary stage tables.
  _session.on_drop([this] { _writer.session_lost(); });
}

void batch_applier::follow_server(unsigned long version) {
  if (version == _server_version) return;
  _server_version = version;
  const sql_dialect dialect = sql_dialect::of_server(version);
  _ddl.set_dialect(dialect);
  _writer.set_dialect(dialect);
  _offsets = offset_store(_session.schema(), _options.connector, dialect);
  _progress = table_progress_store(_session.schema(), _options.connector, dialect);
  _catalog = catalog_writer(_session.schema(), _options.connector, dialect);
}

batch_applier::~batch_applier() {
  _session.on_drop({});
}

apply_result batch_applier::apply(const merged_batch& batch,
                                  const std::vector<dead_letter>& dead_letters,
                                  const std::vector<partition_progress>& progress,
                                  const batch_metadata& metadata, const keep_going& go) {
  check_progress(progress);
  _stream_clock.observe(metadata.stream_time);
  for (const chunk_piece& p : metadata.pieces)
    _stream_clock.observe(p.origin.timestamp);
  _ddl.begin_batch();
  std::vector<dead_letter> found;
  std::vector<table_plan> plans = _planner.plan(batch, found);
  const size_t planned_rejects = found.size();
  std::vector<std::vector<uint8_t>> planned(plans.size());
  std::vector<bool> planned_truncate(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    planned[i] = plans[i].rejected;
    planned_truncate[i] = plans[i].truncate;
  }
  struct current_go {
    keep_going& slot;
    ~current_go() { slot = {}; }
  } restore{_go};
  _go = go;

  apply_result out;
  bool isolate = false;
  int attempts = 0;
  int chunk_ddl_rounds = 0;
  bool chunk_ddl = false;  // the last attempt completed chunks whose tables need DDL first
  std::optional<commit_outcome> in_doubt;
  std::exception_ptr refused;
  std::string abandoned = "abandoned before its transaction ran";
  using after_failure = mdb_session::after_failure;

  const auto attempt = [&](connection& conn) -> std::optional<apply_result> {
    if (in_doubt) {
      const commit_outcome outcome = *in_doubt;
      in_doubt.reset();
      if (outcome == commit_outcome::committed) return out;
      if (outcome == commit_outcome::stale) {
        out.outcome = apply_outcome::stale;
        return out;
      }
      out.why.clear();
    }
    follow_server(conn.server_version());
    apply_stats& stats = out.stats;
    stats = apply_stats{};
    stats.attempts = ++attempts;
    found.resize(planned_rejects);
    for (size_t i = 0; i < plans.size(); ++i) {
      plans[i].rejected = planned[i];
      plans[i].truncate = planned_truncate[i];
    }
    try {
      check_routes(conn, plans, found);
      const table_ddl::waiting_fn waiting = [&](const std::string& why) {
        if (go && !go()) throw batch_abandoned();
        _session.stalled_by({target_error_action::retry, "HY000", why});
      };
      _ddl.prepare(conn, plans, found, waiting);
      if (chunk_ddl) {
        prepare_chunk_tables(conn, waiting);
        chunk_ddl = false;
      }
      _session.end_stall();
      switch (run_batch(conn, plans, dead_letters, found, progress, metadata, isolate, stats,
                        out.why)) {
        case attempt_end::committed:
          out.outcome = apply_outcome::committed;
          return out;
        case attempt_end::stale:
          out.outcome = apply_outcome::stale;
          return out;
        case attempt_end::abandoned:
          out.outcome = apply_outcome::abandoned;
          out.why = "abandoned inside its transaction (rolled back)";
          return out;
        case attempt_end::chunk_ddl_needed:
          // A chunk completed in the batch transaction needs a table, columns, a route claim
          // or a table_locks row, which must be made outside it (MariaDB commits DDL
          // implicitly): rolled back, made by the next attempt, the batch run again.
          if (++chunk_ddl_rounds > _session.policy().statement_attempts) {
            throw std::runtime_error(
                "completed chunked records keep needing new tables or columns");
          }
          chunk_ddl = true;
          return std::nullopt;
      }
    } catch (const schema_error&) {
      refused = std::current_exception();
      return out;
    } catch (const batch_abandoned&) {
      _session.end_stall();
      out.outcome = apply_outcome::abandoned;
      out.why = "abandoned while its DDL waited for a metadata lock";
      return out;
    }
    return std::nullopt;
  };

  const auto on_failure = [&](const target_error_class& error) {
    abandoned = "abandoned while retrying: " + error.message;
    switch (error.action) {
      case target_error_action::reject:
        if (isolate) return after_failure::rethrow;
        isolate = true;
        return after_failure::again;
      case target_error_action::in_doubt:
        abandoned = "commit outcome unknown: " + error.message;
        in_doubt = _session.run_while(go, [&](connection& conn) {
          if (progress.empty()) return commit_outcome::not_committed;
          return resolve_commit(progress, _offsets.read(conn, progress));
        });
        if (in_doubt && *in_doubt == commit_outcome::stale) {
          out.why = "commit outcome unknown and the offsets moved on: " + error.message;
        }
        return after_failure::again;
      case target_error_action::fatal:
        _ddl.forget();
        return after_failure::policy;
      default:
        return after_failure::policy;
    }
  };

  std::optional<apply_result> result = _session.run_attempts(go, attempt, on_failure);
  if (refused) std::rethrow_exception(refused);
  if (!result) {
    out.outcome = apply_outcome::abandoned;
    out.why = std::move(abandoned);
    return out;
  }
  return *result;
}

batch_applier::attempt_end batch_applier::run_batch(
    connection& conn, std::vector<table_plan>& plans, const std::vector<dead_letter>& given,
    std::vector<dead_letter>& found, const std::vector<partition_progress>& progress,
    const batch_metadata& metadata, bool isolate, apply_stats& stats, std::string& why) {
  _locks.clear();
  for (const table_plan& p : plans) {
    // Many new keys into a table without tombstones: the table alone, no key locks.
    const bool alone = _writer.inserts_alone(p);
    _locks.add_table(p.target, (p.truncate && _options.truncate_enabled) || alone);
    if (p.keyless || alone) continue;
    for (size_t i = 0; i < p.item_count(); ++i) {
      if (!p.rejected[i]) _locks.add_key(p.target, p.row(i).key.canonical);
    }
  }
  _locks.prepare(conn);  // the table_locks rows, autocommitted, before the transaction
  transaction tx(conn);
  // Chunked records first: their locks come before the table and key locks.
  std::vector<dead_letter> chunk_letters;
  std::vector<table_plan> completed;
  if (!complete_chunks(conn, metadata, chunk_letters, stats, completed)) {
    return attempt_end::chunk_ddl_needed;  // rolled back with tx
  }
  for (const table_plan& p : completed) {
    _locks.add_table(p.target, false);
    for (size_t i = 0; i < p.item_count(); ++i) {
      if (!p.rejected[i] && !p.keyless) _locks.add_key(p.target, p.row(i).key.canonical);
    }
  }
  _locks.acquire(conn);
  _ddl.refresh(conn, plans);
  _ddl.refresh(conn, completed);

  const std::vector<std::string> stale = _offsets.advance(conn, progress);
  if (!stale.empty()) {
    std::string which;
    for (const std::string& s : stale)
      which += (which.empty() ? "" : ", ") + s;
    why = "offsets compare-and-set failed for " + which +
          ": another owner holds the partition or the offset moved";
    return attempt_end::stale;
  }

  struct counters {
    size_t written, deleted, stale, missing;
  };
  const auto snapshot = [&stats] {
    return counters{stats.upserted + stats.appended, stats.deleted, stats.stale, stats.missing};
  };
  // One plan: values its columns cannot hold are dead letters first (MariaDB would round or
  // trim some with only a note), then its truncate and its rows, counted per source table.
  const auto write_plan = [&](table_plan& p, bool with_truncate) {
    const counters before = snapshot();
    const table_shape& shape = _ddl.shape(p.target);
    reject_unfit_values(p, shape, found);
    if (with_truncate) _writer.truncate(conn, p, shape, stats);
    if (isolate) {
      write_isolated(conn, p, 0, p.item_count(), found, stats);
    } else {
      _writer.write(conn, p, shape, 0, p.item_count(), stats);
    }
    const counters after = snapshot();
    table_apply_stats t;
    t.table = p.rows ? p.rows->table : nullptr;
    t.target = label(p.target);
    t.written = after.written - before.written;
    t.deleted = after.deleted - before.deleted;
    t.stale = after.stale - before.stale;
    t.missing = after.missing - before.missing;
    for (uint8_t r : p.rejected)
      t.rejected += r ? 1 : 0;
    stats.tables.push_back(t);
  };
  for (table_plan& p : plans)
    write_plan(p, true);
  // The completed chunks' changes: a second merged batch, after the first (apply is
  // order-insensitive by CSN, so it does not matter that they came in earlier batches).
  for (table_plan& p : completed)
    write_plan(p, false);
  _progress.record(conn, plans, completed);
  _catalog.write(conn, metadata.catalog);
  _catalog.record(conn, metadata.ddl);

  std::vector<const dead_letter*> letters;
  letters.reserve(given.size() + found.size());
  for (const dead_letter& d : given)
    letters.push_back(&d);
  for (const dead_letter& d : found)
    letters.push_back(&d);
  for (const dead_letter& d : chunk_letters)
    letters.push_back(&d);
  const bool replay = _replayed && !_replayed->empty();
  std::vector<int64_t> written;
  stats.dead_lettered = _dead_letters.write(conn, letters, replay ? &written : nullptr);
  // `dead-letters replay`: the replayed letters leave with the batch that applied them; one
  // that failed again keeps its id, with the reason it failed for now.
  if (replay)
    replay_settlement(_session.schema(), _options.connector).settle(conn, *_replayed, written);
  stats.rejected = found.size();
  for (const auto& [target, error] : _ddl.failures())
    stats.ddl_failures.push_back({label(target), error});
  if (_dead_letter_sink && letters.size() > given.size()) {
    _dead_letter_sink(std::vector<const dead_letter*>(
        letters.begin() + static_cast<std::ptrdiff_t>(given.size()), letters.end()));
  }
  if (_go && !_go()) return attempt_end::abandoned;
  tx.commit();  // a connection lost meanwhile: commit_in_doubt, resolved by apply()
  return attempt_end::committed;
}

void batch_applier::write_isolated(connection& conn, table_plan& plan, size_t begin, size_t end,
                                   std::vector<dead_letter>& found, apply_stats& stats) {
  size_t live = 0;
  size_t last = begin;
  for (size_t i = begin; i < end; ++i) {
    if (!plan.rejected[i]) {
      ++live;
      last = i;
    }
  }
  if (live == 0) return;
  std::string reason;
  conn.exec("SAVEPOINT sluice_isolate");
  try {
    apply_stats part;
    _writer.write(conn, plan, _ddl.shape(plan.target), begin, end, part);
    conn.exec("RELEASE SAVEPOINT sluice_isolate");
    stats += part;
    return;
  } catch (const std::exception& e) {
    const target_error_class c = classify_mdb_error(e);
    if (c.action != target_error_action::reject) throw;
    reason = c.message;
  }
  conn.exec("ROLLBACK TO SAVEPOINT sluice_isolate");
  conn.exec("RELEASE SAVEPOINT sluice_isolate");
  if (live == 1) {
    plan.rejected[last] = 1;
    const std::string why = label(plan.target) + ": " + reason;
    found.push_back(plan.keyless
                        ? keyless_dead_letter(*plan.rows, plan.keyless_change(last), why,
                                              dead_letter_kind::rejected, &plan.target)
                        : merged_row_dead_letter(*plan.rows, plan.row(last), why,
                                                 dead_letter_kind::rejected, &plan.target));
    return;
  }
  const size_t mid = begin + (end - begin) / 2;
  write_isolated(conn, plan, begin, mid, found, stats);
  write_isolated(conn, plan, mid, end, found, stats);
}

bool batch_applier::complete_chunks(connection& conn, const batch_metadata& metadata,
                                    std::vector<dead_letter>& letters, apply_stats& stats,
                                    std::vector<table_plan>& plans) {
  if (!_chunk_decoder && _options.chunk_decoders) {
    _chunk_decoder = _options.chunk_decoders([this] { return !_go || _go(); });
  }
  chunk_outcome outcome =
      _chunks.process(conn, metadata.pieces, _stream_clock.now(), _chunk_decoder.get());
  stats.chunks_completed = outcome.completed;
  stats.chunks_expired = outcome.expired;
  if (outcome.pending) stats.pending_chunks = static_cast<int64_t>(*outcome.pending);
  letters = std::move(outcome.dead_letters);
  plans.clear();
  if (outcome.changes.empty()) return true;
  _completed = _chunk_merge.merge(std::move(outcome.changes));
  for (table_rows& tr : _completed.tables)  // routed as the prepare stage routes the others
    tr.topic = std::string(_chunk_decoder->routed_topic(tr.topic));
  plans = _planner.plan(_completed, letters);
  // New targets are claimed, tables made and table_locks rows inserted outside the
  // transaction (apply()'s chunk_ddl round): here they would commit with the DDL or hold
  // their rows until COMMIT.
  if (_routes.needs_claims(plans) || !_ddl.ready(plans)) return false;
  for (const table_plan& p : plans) {
    if (!_locks.prepared(p.target)) return false;
  }
  _routes.enforce(plans, letters);
  _ddl.prepare(conn, plans, letters);  // ready: no DDL, no round trip, the key check only
  return true;
}

void batch_applier::prepare_chunk_tables(connection& conn, const table_ddl::waiting_fn& waiting) {
  std::vector<dead_letter> ignored;  // found again by the next attempt
  std::vector<table_plan> completed = _planner.plan(_completed, ignored);
  check_routes(conn, completed, ignored);
  _ddl.prepare(conn, completed, ignored, waiting);
  _locks.clear();
  for (const table_plan& p : completed)
    _locks.add_table(p.target, false);
  _locks.prepare(conn);  // run_batch() starts its set afresh
}

void batch_applier::check_routes(connection& conn, std::vector<table_plan>& plans,
                                 std::vector<dead_letter>& rejects) {
  if (_routes.needs_claims(plans)) {
    transaction tx(conn);
    auto owners = _routes.claim(conn, plans);
    tx.commit();
    _routes.learn(std::move(owners));
  }
  _routes.enforce(plans, rejects);
}

}  // namespace sluice::mdb
