#include "sinks/postgres/pg_applier.h"

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <pqxx/except>
#include <pqxx/nontransaction>
#include <pqxx/transaction>

#include "sinks/postgres/change_dead_letter.h"
#include "sinks/postgres/table_shape.h"

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

// A chunk completed in the batch transaction needs a table or columns that DDL must make
// first, in a transaction of its own: roll back, make them, run the batch again.
struct chunk_ddl_needed {};

}  // namespace

pg_applier::pg_applier(std::string dsn, apply_options options)
    : _dsn(std::move(dsn)),
      _options(std::move(options)),
      _schema(_options.state_schema),
      _planner(_options),
      _ddl(_options),
      _writer(_options, _schema.table("tombstones")),
      _locks(_options.max_key_locks),
      _offsets(_schema, _options.connector),
      _progress(_schema, _options.connector),
      _dead_letters(_schema, _options.connector),
      _catalog(_schema, _options.connector),
      _chunks(_schema, _options.connector, _options.chunk_timeout) {
  if (_options.connector.empty()) throw std::invalid_argument("apply_options.connector is empty");
  if (_options.max_attempts < 1) _options.max_attempts = 1;
}

pg_applier::~pg_applier() = default;

pqxx::connection& pg_applier::connection() {
  if (!_conn) {
    auto conn = std::make_unique<pqxx::connection>(_dsn);
    try {
      conn->set_client_encoding("UTF8");
      // NOTICEs ("relation already exists, skipping") are not worth a line on stderr. JIT
      // compiles a batch statement for tens of milliseconds whenever the per-row tombstone
      // probes push its estimated cost past jit_above_cost, to save less than it costs.
      // A batch joins a few thousand keys with tables that may hold millions of rows: one
      // primary-key probe per key, as INSERT … ON CONFLICT did, never a hash of a whole table
      // (which the planner, without statistics on the staged rows and counting cached index
      // pages as disk reads, may find cheaper). Every join sluice makes is on a primary key;
      // tombstones are probed by scalar subqueries.
      pqxx::nontransaction(*conn).exec(
          "SET client_min_messages TO warning; SET jit = off; SET enable_hashjoin = off; "
          "SET enable_mergejoin = off");
    } catch (const pqxx::broken_connection&) {
      throw;
    } catch (const std::exception& e) {
      // libpqxx reports a connection lost here as a plain failure ("Setting client encoding
      // failed."): it is a lost connection all the same, to be retried.
      if (!conn->is_open()) throw pqxx::broken_connection(e.what());
      throw;
    }
    // The upserts are MERGE statements (sql::merge_upsert), which PostgreSQL has since 15.
    if (conn->server_version() < 150000) {
      throw std::runtime_error("PostgreSQL " + std::to_string(conn->server_version()) +
                               " is too old: sluice's apply path needs PostgreSQL 15 or later");
    }
    if (_options.max_key_locks == 0) {
      // A 32nd of the shared lock table: room for many lanes and instances at once, and for
      // everything else the server locks.
      const pqxx::row r = pqxx::nontransaction(*conn).exec1(
          "SELECT current_setting('max_locks_per_transaction')::bigint * "
          "(current_setting('max_connections')::bigint + "
          "current_setting('max_prepared_transactions')::bigint) / 32");
      _locks.set_max_keys(r[0].as<size_t>());
    }
    _conn = std::move(conn);
  }
  if (!_migrated) {
    _schema.migrate(*_conn);
    _migrated = true;
  }
  return *_conn;
}

void pg_applier::drop_connection() {
  _conn.reset();
  _writer.session_lost();
}

void pg_applier::backoff(int failures) const {
  using std::chrono::milliseconds;
  const int64_t initial = std::max<int64_t>(1, _options.backoff_initial.count());
  const int64_t cap = std::max<int64_t>(initial, _options.backoff_max.count());
  int64_t delay = initial;
  for (int i = 1; i < failures && delay < cap; ++i)
    delay *= 2;
  delay = std::min(delay, cap);
  // Half fixed, half random, so that lanes failing together do not retry in lockstep.
  thread_local std::minstd_rand rng{std::random_device{}()};
  delay = delay / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(delay / 2 + 1));
  std::this_thread::sleep_for(milliseconds(delay));
}

template <typename F>
auto pg_applier::with_retries(F&& body) {
  for (int failures = 0;;) {
    try {
      return body(connection());
    } catch (const std::exception& e) {
      _last_error = classify_pg_error(e);
      if (_options.on_error) _options.on_error(_last_error);
      const pg_error_action action = _last_error.action;
      if (action != pg_error_action::retry && action != pg_error_action::reconnect &&
          action != pg_error_action::in_doubt) {
        throw;
      }
      if (action != pg_error_action::retry) drop_connection();
      if (++failures >= _options.max_attempts) throw;
      backoff(failures);
    }
  }
}

void pg_applier::start() {
  with_retries([](pqxx::connection&) { return 0; });
}

std::vector<claimed_partition> pg_applier::claim(const std::string& topic,
                                                 const std::vector<partition_id>& partitions) {
  // Claiming twice (after an unknown commit outcome) only raises the epoch further.
  return with_retries([&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_claim");
    auto out = _offsets.claim(tx, topic, partitions);
    tx.commit();
    return out;
  });
}

std::vector<stored_offset> pg_applier::read_offsets() {
  return read_offsets(_options.connector);
}

std::vector<stored_offset> pg_applier::read_offsets(const std::string& connector) {
  const offset_store store(_schema, connector);
  return with_retries([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_offsets");
    return store.read(tx);
  });
}

std::vector<std::string> pg_applier::target_primary_key(const target_table& table) {
  return with_retries([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_key");
    return read_table_shape(tx, table).primary_key;
  });
}

std::vector<table_progress> pg_applier::read_table_progress() {
  return with_retries([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_table_progress");
    return _progress.read(tx);
  });
}

size_t pg_applier::expire_tombstones(std::chrono::seconds retention) {
  return with_retries([&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_expire_tombstones");
    const pqxx::result r =
        tx.exec_params("DELETE FROM " + _schema.table("tombstones") +
                           " WHERE deleted_at < now() - $1 * interval '1 second'",
                       static_cast<int64_t>(retention.count()));
    tx.commit();
    return static_cast<size_t>(r.affected_rows());
  });
}

size_t pg_applier::pending_chunks() {
  return with_retries([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_pending_chunks");
    return _chunks.count_pending(tx);
  });
}

std::vector<catalog_update> pg_applier::load_catalog() {
  return with_retries([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_load_catalog");
    return _catalog.load(tx);
  });
}

apply_stats pg_applier::apply(const merged_batch& batch,
                              const std::vector<dead_letter>& dead_letters,
                              const std::vector<partition_progress>& progress,
                              const batch_metadata& metadata) {
  check_progress(progress);
  std::vector<dead_letter> found;
  std::vector<table_plan> plans = _planner.plan(batch, found);
  // What the planner refused stays refused; what an attempt found is forgotten with it.
  const size_t planned_rejects = found.size();
  std::vector<std::vector<uint8_t>> planned(plans.size());
  for (size_t i = 0; i < plans.size(); ++i)
    planned[i] = plans[i].rejected;

  _stream_time = std::max(_stream_time, metadata.stream_time);
  for (const chunk_piece& p : metadata.pieces)
    _stream_time = std::max(_stream_time, p.origin.timestamp);

  bool isolate = false;
  int attempts = 0;
  int chunk_ddl_rounds = 0;
  bool chunk_ddl = false;  // the last attempt completed chunks whose tables need DDL first
  for (int failures = 0;;) {
    apply_stats stats;
    stats.attempts = ++attempts;
    found.resize(planned_rejects);
    for (size_t i = 0; i < plans.size(); ++i)
      plans[i].rejected = planned[i];
    try {
      pqxx::connection& conn = connection();
      _ddl.prepare(conn, plans, found);
      if (chunk_ddl) {
        std::vector<dead_letter> ignored;  // found again by the next attempt
        std::vector<table_plan> completed = _planner.plan(_completed, ignored);
        _ddl.prepare(conn, completed, ignored);
        chunk_ddl = false;
      }
      run_batch(plans, dead_letters, found, progress, metadata, isolate, stats);
      return stats;
    } catch (const stale_epoch_error&) {
      throw;
    } catch (const schema_error&) {
      throw;
    } catch (const chunk_ddl_needed&) {
      if (++chunk_ddl_rounds > _options.max_attempts) {
        throw std::runtime_error("completed chunked records keep needing new tables or columns");
      }
      chunk_ddl = true;
      continue;
    } catch (const std::exception& e) {
      _last_error = classify_pg_error(e);
      if (_options.on_error) _options.on_error(_last_error);
      switch (_last_error.action) {
        case pg_error_action::reject:
          // Once: re-run with the table writes under savepoints to find the culprit. A
          // reject outside the table writes (or again) has no change to blame: fatal.
          if (isolate) throw;
          isolate = true;
          continue;
        case pg_error_action::in_doubt: {
          drop_connection();
          // If even this fails the outcome stays unknown: the error propagates, and the
          // caller must not go on as if either had happened.
          const commit_outcome outcome =
              with_retries([&](pqxx::connection&) { return resolve_in_doubt(progress); });
          if (outcome == commit_outcome::committed) return stats;
          if (outcome == commit_outcome::stale) {
            throw stale_epoch_error("commit outcome unknown and the offsets moved on: " +
                                    _last_error.message);
          }
          break;  // not committed: run it again
        }
        case pg_error_action::reconnect:
          drop_connection();
          break;
        case pg_error_action::retry:
          break;
        case pg_error_action::fatal:
          _ddl.forget();
          throw;
      }
      if (++failures >= _options.max_attempts) throw;
      backoff(failures);
    }
  }
}

void pg_applier::run_batch(std::vector<table_plan>& plans, const std::vector<dead_letter>& given,
                           std::vector<dead_letter>& found,
                           const std::vector<partition_progress>& progress,
                           const batch_metadata& metadata, bool isolate, apply_stats& stats) {
  pqxx::work tx(*_conn, "sluice_batch");
  _writer.transaction_begun();

  // Chunked records first: their locks come before the table and key locks.
  std::vector<dead_letter> chunk_letters;
  std::vector<table_plan> completed = complete_chunks(tx, metadata, chunk_letters, stats);

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
    throw stale_epoch_error("offsets compare-and-set failed for " + which +
                            ": another owner holds the partition or the offset moved");
  }

  // What one plan's write added to the batch's figures, kept per source table.
  struct counters {
    size_t written, deleted, stale;
  };
  const auto snapshot = [&stats] {
    return counters{stats.upserted + stats.appended, stats.deleted, stats.stale};
  };
  const auto account = [&stats, &snapshot](const table_plan& p, const counters& before) {
    const counters after = snapshot();
    table_apply_stats t;
    t.table = p.rows ? p.rows->table : nullptr;
    t.written = after.written - before.written;
    t.deleted = after.deleted - before.deleted;
    t.stale = after.stale - before.stale;
    for (uint8_t r : p.rejected)
      t.rejected += r ? 1 : 0;
    stats.tables.push_back(t);
  };
  for (table_plan& p : plans) {
    const counters before = snapshot();
    const table_shape& shape = _ddl.shape(p.target);
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
  stats.dead_lettered = _dead_letters.write(tx, letters);
  stats.rejected = found.size();
  if (_dead_letter_sink && letters.size() > given.size()) {
    _dead_letter_sink(
        std::vector<const dead_letter*>(letters.begin() + given.size(), letters.end()));
  }
  tx.commit();
  _writer.transaction_committed();
}

void pg_applier::write_isolated(pqxx::dbtransaction& tx, table_plan& plan, size_t begin, size_t end,
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
    found.push_back(plan.keyless ? keyless_dead_letter(*plan.rows, plan.keyless_change(last), why)
                                 : merged_row_dead_letter(*plan.rows, plan.row(last), why));
    return;
  }
  const size_t mid = begin + (end - begin) / 2;
  write_isolated(tx, plan, begin, mid, found, stats);
  write_isolated(tx, plan, mid, end, found, stats);
}

std::vector<table_plan> pg_applier::complete_chunks(pqxx::dbtransaction& tx,
                                                    const batch_metadata& metadata,
                                                    std::vector<dead_letter>& letters,
                                                    apply_stats& stats) {
  if (!_chunk_decoder && _options.chunk_decoders) _chunk_decoder = _options.chunk_decoders();
  chunk_outcome outcome = _chunks.process(tx, metadata.pieces, _stream_time, _chunk_decoder.get());
  stats.chunks_completed = outcome.completed;
  stats.chunks_expired = outcome.expired;
  if (outcome.pending) stats.pending_chunks = static_cast<int64_t>(*outcome.pending);
  letters = std::move(outcome.dead_letters);
  if (outcome.changes.empty()) return {};
  _completed = _chunk_merge.merge(std::move(outcome.changes));
  std::vector<table_plan> plans = _planner.plan(_completed, letters);
  if (!_ddl.ready(plans)) throw chunk_ddl_needed{};
  _ddl.prepare(*_conn, plans, letters);  // nothing to make: only the primary-key check
  return plans;
}

commit_outcome pg_applier::resolve_in_doubt(const std::vector<partition_progress>& progress) {
  // Without offsets there is nothing to read back: running the batch again is safe for the
  // rows (every write is guarded by CSN) and may repeat only its dead letters and appends.
  if (progress.empty()) return commit_outcome::not_committed;
  // Read-write: offset_store::read locks the rows FOR SHARE, which waits for the lost
  // transaction if the server is still committing (or rolling back) it.
  pqxx::work tx(connection(), "sluice_in_doubt");
  return resolve_commit(progress, _offsets.read(tx, progress));
}

}  // namespace sluice
