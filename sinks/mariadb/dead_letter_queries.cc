#include "sinks/mariadb/dead_letter_queries.h"

#include "sinks/mariadb/session/mdb_transaction.h"

namespace sluice::mdb {

dead_letter_queries::listing dead_letter_queries::list(const dead_letter_filter& f, size_t limit) {
  return _session.run([&](connection& conn) {
    listing out;
    transaction tx(conn);  // one snapshot for the page and its total
    out.letters = _store.select(conn, f, 0, limit);
    out.total = _store.count(conn, f);
    tx.commit();
    return out;
  });
}

std::optional<stored_dead_letter> dead_letter_queries::show(const dead_letter_filter& f) {
  std::vector<stored_dead_letter> letters =
      _session.run([&](connection& conn) { return _store.select(conn, f, 0, 1); });
  if (letters.empty()) return std::nullopt;
  return std::move(letters.front());
}

std::vector<stored_dead_letter> dead_letter_queries::page(const dead_letter_filter& f,
                                                          int64_t after_id, size_t limit) {
  return _session.run([&](connection& conn) { return _store.select(conn, f, after_id, limit); });
}

int64_t dead_letter_queries::last_id(const dead_letter_filter& f) {
  return _session.run([&](connection& conn) { return _store.last_id(conn, f); });
}

uint64_t dead_letter_queries::purge(const dead_letter_filter& f, bool dry_run) {
  return _session.run([&](connection& conn) {
    transaction tx(conn);
    const uint64_t n = dry_run ? _store.count(conn, f) : _store.purge(conn, f);
    tx.commit();
    return n;
  });
}

void dead_letter_queries::take_replay_turn(const std::function<void()>& waiting) {
  // The named lock is the connection's: a reconnect loses it, and the session's retry takes
  // it again before going on.
  _session.run([&](connection& conn) {
    _store.take_replay_turn(conn, waiting);
    return true;
  });
}

}  // namespace sluice::mdb
