#include "sinks/postgres/batch_applier.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <pqxx/except>
#include <pqxx/nontransaction>
#include <pqxx/transaction>

#include "sinks/plan/change_dead_letter.h"
#include "sinks/postgres/plan/pg_rules.h"
#include "sinks/postgres/plan/value_fit.h"
#include "sinks/postgres/sql/table_shape.h"
#include "sinks/postgres/state/dead_letter_store.h"

namespace sluice {
namespace {

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

batch_applier::batch_applier(pg_session& session, apply_options options)
    : _session(session),
      _options(std::move(options)),
      _planner(_options, pg_target_rules(_options.state_schema)),
      _ddl(_options),
      _writer(_options, _session.schema().table("tombstones")),
      _locks(_options.max_key_locks),
      _offsets(_session.schema(), _options.connector),
      _progress(_session.schema(), _options.connector),
      _dead_letters(_session.schema(), _options.connector),
      _catalog(_session.schema(), _options.connector),
      _chunks(_session.schema(), _options.connector, _options.chunk_timeout,
              _options.chunk_max_bytes),
      _routes(_session.schema(), _options.connector) {
  if (_options.connector.empty()) throw std::invalid_argument("apply_options.connector is empty");
  _session.on_open([this](pqxx::connection& conn) { session_opened(conn); });
  _session.on_drop([this] { _writer.session_lost(); });
  _ddl.on_long_statements([this](bool off) { _session.off_clock(off); });
}

batch_applier::~batch_applier() {
  _session.on_open({});
  _session.on_drop({});
}

void batch_applier::session_opened(pqxx::connection& conn) {
  // JIT compiles a batch statement for tens of milliseconds whenever the per-row tombstone
  // probes push its estimated cost past jit_above_cost, to save less than it costs. A batch
  // joins a few thousand keys with tables that may hold millions of rows: one primary-key
  // probe per key, as INSERT … ON CONFLICT did, never a hash of a whole table (which the
  // planner, without statistics on the staged rows and counting cached index pages as disk
  // reads, may find cheaper). Every join sluice makes is on a primary key; tombstones are
  // probed by scalar subqueries.
  pqxx::nontransaction(conn).exec(
      "SET jit = off; SET enable_hashjoin = off; SET enable_mergejoin = off");
  if (_options.max_key_locks == 0) {
    // A 32nd of the shared lock table: room for many lanes and instances at once, and for
    // everything else the server locks.
    const pqxx::row r = pqxx::nontransaction(conn).exec1(
        "SELECT current_setting('max_locks_per_transaction')::bigint * "
        "(current_setting('max_connections')::bigint + "
        "current_setting('max_prepared_transactions')::bigint) / 32");
    _locks.set_max_keys(r[0].as<size_t>());
  }
}

apply_result batch_applier::apply(const merged_batch& batch,
                                  const std::vector<dead_letter>& dead_letters,
                                  const std::vector<partition_progress>& progress,
                                  const batch_metadata& metadata,
                                  const pg_session::keep_going& go) {
  check_progress(progress);
  _ddl.begin_batch();
  std::vector<dead_letter> found;
  std::vector<table_plan> plans = _planner.plan(batch, found);
  // What the planner refused stays refused; what an attempt found is forgotten with it.
  const size_t planned_rejects = found.size();
  // What the planner refused stays refused, and its truncates stay (a whole-plan refusal in
  // an attempt — a folded source, a failed DDL — clears the plan's truncate along with it).
  std::vector<std::vector<uint8_t>> planned(plans.size());
  std::vector<bool> planned_truncate(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    planned[i] = plans[i].rejected;
    planned_truncate[i] = plans[i].truncate;
  }

  _stream_clock.observe(metadata.stream_time);
  for (const chunk_piece& p : metadata.pieces)
    _stream_clock.observe(p.origin.timestamp);

  // The keep-going test of this apply, for the chunk decoder's lookups.
  struct current_go {
    pg_session::keep_going& slot;
    ~current_go() { slot = {}; }
  } restore{_go};
  _go = go;
  apply_result out;
  bool isolate = false;
  int attempts = 0;
  int chunk_ddl_rounds = 0;
  bool chunk_ddl = false;  // the last attempt completed chunks whose tables need DDL first
  std::optional<commit_outcome> in_doubt;  // what reading a commit in doubt back found
  std::exception_ptr refused;              // the batch cannot be applied: thrown as it is
  std::string abandoned = "abandoned before its transaction ran";
  using after_failure = pg_session::after_failure;

  // One attempt: a value ends the loop, nothing runs another at once; a PostgreSQL failure
  // goes to the session's loop, which asks on_failure below what to do about it.
  const auto attempt_once = [&](pqxx::connection& conn) -> std::optional<apply_result> {
    check_routes(conn, plans, found);
    _ddl.prepare(conn, plans, found);
    if (chunk_ddl) {
      std::vector<dead_letter> ignored;  // found again by the next attempt
      std::vector<table_plan> completed = _planner.plan(_completed, ignored);
      check_routes(conn, completed, ignored);
      _ddl.prepare(conn, completed, ignored);
      chunk_ddl = false;
    }
    switch (
        run_batch(plans, dead_letters, found, progress, metadata, isolate, out.stats, out.why)) {
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
        // A chunk completed in the batch transaction needs a table or columns that DDL must
        // make first, in a transaction of its own: make them, run the batch again.
        if (++chunk_ddl_rounds > _session.policy().statement_attempts) {
          throw std::runtime_error("completed chunked records keep needing new tables or columns");
        }
        chunk_ddl = true;
        return std::nullopt;
    }
    return std::nullopt;
  };
  const auto attempt = [&](pqxx::connection& conn) -> std::optional<apply_result> {
    if (in_doubt) {
      // The previous attempt's commit was in doubt and has been read back.
      const commit_outcome outcome = *in_doubt;
      in_doubt.reset();
      if (outcome == commit_outcome::committed) return out;
      if (outcome == commit_outcome::stale) {
        out.outcome = apply_outcome::stale;
        return out;
      }
      out.why.clear();  // not committed: run it again
    }
    apply_stats& stats = out.stats;
    stats = apply_stats{};
    stats.attempts = ++attempts;
    found.resize(planned_rejects);
    for (size_t i = 0; i < plans.size(); ++i) {
      plans[i].rejected = planned[i];
      plans[i].truncate = planned_truncate[i];
    }
    try {
      return attempt_once(conn);
    } catch (const schema_error&) {
      // The configuration forbids fixing a table: the operator's to act, not a failure of
      // PostgreSQL to retry or report (the transaction, if any, rolled back).
      refused = std::current_exception();
      return out;
    }
  };

  const auto on_failure = [&](const pg_error_class& error) {
    abandoned = "abandoned while retrying: " + error.message;
    switch (error.action) {
      case pg_error_action::reject:
        // Once: re-run with the table writes under savepoints to find the culprit. A
        // reject outside the table writes (or again) has no change to blame: fatal.
        if (isolate) return after_failure::rethrow;
        isolate = true;
        return after_failure::again;
      case pg_error_action::in_doubt: {
        // Whether the commit happened: read the offsets back (waiting out an outage, each
        // round trip under the session's deadline). Until it is known, nothing goes on.
        abandoned = "commit outcome unknown: " + error.message;
        in_doubt = _session.run_while(
            go, [&](pqxx::connection& conn) { return resolve_in_doubt(conn, progress); });
        if (in_doubt && *in_doubt == commit_outcome::stale) {
          out.why = "commit outcome unknown and the offsets moved on: " + error.message;
        }
        return after_failure::again;  // abandoned (go() said stop) at the loop's first test
      }
      case pg_error_action::fatal:
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

batch_applier::attempt_end batch_applier::run_batch(std::vector<table_plan>& plans,
                                                    const std::vector<dead_letter>& given,
                                                    std::vector<dead_letter>& found,
                                                    const std::vector<partition_progress>& progress,
                                                    const batch_metadata& metadata, bool isolate,
                                                    apply_stats& stats, std::string& why) {
  pqxx::work tx(_session.connection(), "sluice_batch");
  _writer.transaction_begun();

  // Chunked records first: their locks come before the table and key locks.
  std::vector<dead_letter> chunk_letters;
  std::vector<table_plan> completed;
  if (!complete_chunks(tx, metadata, chunk_letters, stats, completed)) {
    return attempt_end::chunk_ddl_needed;  // rolled back with tx
  }

  _locks.clear();
  for (const table_plan& p : plans) {
    _locks.add_table(p.target, p.truncate && _options.truncate_enabled);
    if (p.keyless) continue;
    for (size_t i = 0; i < p.item_count(); ++i) {
      if (!p.rejected[i]) _locks.add_key(p.target, p.row(i).key.canonical);
    }
  }
  for (const table_plan& p : completed) {
    _locks.add_table(p.target, false);
    for (size_t i = 0; i < p.item_count(); ++i) {
      if (!p.rejected[i] && !p.keyless) _locks.add_key(p.target, p.row(i).key.canonical);
    }
  }
  _locks.acquire(tx);
  // Under the key locks: another lane may have created or versioned a table since we cached it.
  _ddl.refresh(tx, plans);
  _ddl.refresh(tx, completed);

  // Before any write, so that a zombie fails fast.
  const std::vector<std::string> stale = _offsets.advance(tx, progress);
  if (!stale.empty()) {
    std::string which;
    for (const std::string& s : stale)
      which += (which.empty() ? "" : ", ") + s;
    why = "offsets compare-and-set failed for " + which +
          ": another owner holds the partition or the offset moved";
    return attempt_end::stale;  // rolled back with tx
  }

  // What one plan's write added to the batch's figures, kept per source table.
  struct counters {
    size_t written, deleted, stale, missing;
  };
  const auto snapshot = [&stats] {
    return counters{stats.upserted + stats.appended, stats.deleted, stats.stale, stats.missing};
  };
  const auto account = [&stats, &snapshot](const table_plan& p, const counters& before) {
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
  for (table_plan& p : plans) {
    const counters before = snapshot();
    const table_shape& shape = _ddl.shape(p.target);
    reject_unfit_values(p, shape, found);
    _writer.truncate(tx, p, shape, stats);
    if (isolate) {
      write_isolated(tx, p, 0, p.item_count(), found, stats);
    } else {
      _writer.write(tx, p, shape, 0, p.item_count(), stats);
    }
    account(p, before);
  }
  // The completed chunks' changes: a second merged batch, after the first (apply is
  // order-insensitive by CSN, so it does not matter that they came in earlier batches).
  for (table_plan& p : completed) {
    const counters before = snapshot();
    reject_unfit_values(p, _ddl.shape(p.target), found);
    if (isolate) {
      write_isolated(tx, p, 0, p.item_count(), found, stats);
    } else {
      _writer.write(tx, p, _ddl.shape(p.target), 0, p.item_count(), stats);
    }
    account(p, before);
  }
  _progress.record(tx, plans, completed);
  // What the batch's metadata records taught: kept exactly when the offsets move past them.
  _catalog.write(tx, metadata.catalog);
  _catalog.record(tx, metadata.ddl);

  std::vector<const dead_letter*> letters;
  letters.reserve(given.size() + found.size());
  for (const dead_letter& d : given)
    letters.push_back(&d);
  for (const dead_letter& d : found)
    letters.push_back(&d);
  for (const dead_letter& d : chunk_letters)
    letters.push_back(&d);
  std::vector<int64_t> written;
  stats.dead_lettered = _dead_letters.write(tx, letters, _transaction_hook ? &written : nullptr);
  if (_transaction_hook) _transaction_hook(tx, written);
  stats.rejected = found.size();
  for (const auto& [target, error] : _ddl.failures())
    stats.ddl_failures.push_back({label(target), error});
  if (_dead_letter_sink && letters.size() > given.size()) {
    _session.off_clock(true);
    try {
      _dead_letter_sink(
          std::vector<const dead_letter*>(letters.begin() + given.size(), letters.end()));
    } catch (...) {
      _session.off_clock(false);
      throw;
    }
    _session.off_clock(false);
  }
  // Abandoned meanwhile (a chunk decoder's lookup gave up waiting): nothing of it is kept.
  if (_go && !_go()) return attempt_end::abandoned;
  tx.commit();
  _writer.transaction_committed();
  return attempt_end::committed;
}

void batch_applier::write_isolated(pqxx::dbtransaction& tx, table_plan& plan, size_t begin,
                                   size_t end, std::vector<dead_letter>& found,
                                   apply_stats& stats) {
  size_t live = 0;
  size_t last = begin;
  for (size_t i = begin; i < end; ++i) {
    if (!plan.rejected[i]) {
      ++live;
      last = i;
    }
  }
  if (live == 0) return;
  // Savepoints by hand: libpqxx 6.4's subtransaction does not open its savepoint before
  // exec_params().
  std::string reason;
  tx.exec("SAVEPOINT sluice_isolate");
  try {
    apply_stats part;
    _writer.write(tx, plan, _ddl.shape(plan.target), begin, end, part);
    tx.exec("RELEASE SAVEPOINT sluice_isolate");
    stats += part;
    return;
  } catch (const std::exception& e) {
    const pg_error_class c = classify_pg_error(e);
    if (c.action != pg_error_action::reject) throw;
    reason = c.message;
  }
  tx.exec("ROLLBACK TO SAVEPOINT sluice_isolate");
  _writer.savepoint_rolled_back();
  tx.exec("RELEASE SAVEPOINT sluice_isolate");
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
  write_isolated(tx, plan, begin, mid, found, stats);
  write_isolated(tx, plan, mid, end, found, stats);
}

bool batch_applier::complete_chunks(pqxx::dbtransaction& tx, const batch_metadata& metadata,
                                    std::vector<dead_letter>& letters, apply_stats& stats,
                                    std::vector<table_plan>& plans) {
  if (!_chunk_decoder && _options.chunk_decoders) {
    _chunk_decoder = _options.chunk_decoders([this] { return !_go || _go(); });
  }
  chunk_outcome outcome =
      _chunks.process(tx, metadata.pieces, _stream_clock.now(), _chunk_decoder.get());
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
  // New targets are claimed, and tables made, in transactions of their own (apply()'s
  // chunk_ddl round): a claim made here would roll back with this attempt.
  if (_routes.needs_claims(plans) || !_ddl.ready(plans)) return false;
  _routes.enforce(plans, letters);
  _ddl.prepare(_session.connection(), plans, letters);  // nothing to make: the key check only
  return true;
}

void batch_applier::check_routes(pqxx::connection& conn, std::vector<table_plan>& plans,
                                 std::vector<dead_letter>& rejects) {
  if (_routes.needs_claims(plans)) {
    pqxx::work tx(conn, "sluice_routes");
    auto owners = _routes.claim(tx, plans);
    tx.commit();
    _routes.learn(std::move(owners));  // only once the claims are known to be kept
  }
  _routes.enforce(plans, rejects);
}

commit_outcome batch_applier::resolve_in_doubt(pqxx::connection& conn,
                                               const std::vector<partition_progress>& progress) {
  // Without offsets there is nothing to read back: running the batch again is safe for the
  // rows (every write is guarded by CSN) and may repeat only its dead letters and appends.
  if (progress.empty()) return commit_outcome::not_committed;
  // Read-write: offset_store::read locks the rows FOR SHARE, which waits for the lost
  // transaction if the server is still committing (or rolling back) it.
  pqxx::work tx(conn, "sluice_in_doubt");
  return resolve_commit(progress, _offsets.read(tx, progress));
}

void batch_applier::remove_replayed_letters(const std::vector<int64_t>* ids) {
  set_transaction_hook([store = dead_letter_store(_session.schema(), _options.connector), ids](
                           pqxx::transaction_base& tx, const std::vector<int64_t>& written) {
    store.settle_replayed(tx, *ids, written);
  });
}

}  // namespace sluice
