#include "sinks/postgres/dead_letter_queries.h"

#include <pqxx/nontransaction>
#include <pqxx/transaction>

#include <chrono>
#include <thread>

namespace sluice {

dead_letter_queries::listing dead_letter_queries::list(const dead_letter_filter& f, size_t limit) {
  listing out;
  _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_dead_letters_list");
    out.letters = _store.select(tx, f, 0, limit);
    out.total = _store.count(tx, f);
    return true;
  });
  return out;
}

std::optional<stored_dead_letter> dead_letter_queries::show(const dead_letter_filter& f) {
  std::vector<stored_dead_letter> letters;
  _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_dead_letters_show");
    letters = _store.select(tx, f, 0, 1);
    return true;
  });
  if (letters.empty()) return std::nullopt;
  return std::move(letters.front());
}

std::vector<stored_dead_letter> dead_letter_queries::page(const dead_letter_filter& f,
                                                          int64_t after_id, size_t limit) {
  std::vector<stored_dead_letter> letters;
  _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_dead_letters_page");
    letters = _store.select(tx, f, after_id, limit);
    return true;
  });
  return letters;
}

int64_t dead_letter_queries::last_id(const dead_letter_filter& f) {
  int64_t last = 0;
  _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_dead_letters_last");
    last = _store.last_id(tx, f);
    return true;
  });
  return last;
}

uint64_t dead_letter_queries::purge(const dead_letter_filter& f, bool dry_run) {
  uint64_t n = 0;
  _session.run([&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_dead_letters_purge");
    n = dry_run ? _store.count(tx, f) : _store.purge(tx, f);
    tx.commit();
    return true;
  });
  return n;
}

void dead_letter_queries::take_replay_turn(const std::function<void()>& waiting) {
  const std::string key =
      "sluice dead-letters replay of " + _connector + " in " + _session.schema().name();
  bool told = false;
  while (true) {
    const bool mine = _session.run([&](pqxx::connection& conn) {
      pqxx::nontransaction tx(conn, "sluice_dead_letters_turn");
      return tx.exec_params("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", key)[0][0]
          .as<bool>();
    });
    if (mine) return;
    if (!told && waiting) waiting();
    told = true;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace sluice
