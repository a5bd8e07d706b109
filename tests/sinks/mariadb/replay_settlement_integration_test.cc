// replay_settlement against a real MariaDB (CTest "sinks.mariadb"): the letters of a
// `dead-letters replay` that fail again keep their ids, each taking the content of the new
// letter of its own message, never another's; those that applied go.
#include "sinks/mariadb/state/replay_settlement.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sinks/mariadb/state/dead_letter_writer.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

struct letters_world {
  state_test_db db;
  mdb::dead_letter_writer writer{db.schema, "letters"};
  mdb::replay_settlement settlement;

  explicit letters_world(const char* name, size_t ids_per_read = 10'000)
      : db(name), settlement(db.schema, "letters", ids_per_read) {}

  std::vector<int64_t> write(const std::vector<dead_letter>& letters) {
    std::vector<const dead_letter*> all;
    for (const dead_letter& d : letters)
      all.push_back(&d);
    std::vector<int64_t> ids;
    db.in_tx([&](mdb::connection& conn) { writer.write(conn, all, &ids); });
    return ids;
  }
  uint64_t settle(const std::vector<int64_t>& replayed, const std::vector<int64_t>& written) {
    return db.in_tx(
        [&](mdb::connection& conn) { return settlement.settle(conn, replayed, written); });
  }
  // id -> target_table and reason of every letter left.
  std::map<int64_t, std::pair<std::string, std::string>> left() {
    std::map<int64_t, std::pair<std::string, std::string>> out;
    const mdb::result r =
        db.conn.query("SELECT id, target_table, reason FROM " + db.schema.table("dead_letters"));
    for (const auto& row : r.rows)
      out[std::stoll(*row.at(0))] = {row.at(1).value_or(""), *row.at(2)};
    return out;
  }
};

// A letter not from one message (a merged row MariaDB refused): no origin.
dead_letter originless(const std::string& table, const std::string& reason) {
  dead_letter d;
  d.reason = reason;
  d.kind = dead_letter_kind::rejected;
  d.target_schema = "replica";
  d.target_table = table;
  return d;
}

dead_letter of_message(int64_t offset, const std::string& reason) {
  dead_letter d = originless("apples", reason);
  d.origin = {"orders", partition_id{0}, kafka_offset{offset}, timestamp_ns{0}};
  d.value = "v" + std::to_string(offset);
  return d;
}

TEST_CASE("mariadb replay settlement: letters without an origin pair only within their table") {
  letters_world w("mdb_settle_tables");
  // Two letters of two tables, replayed; only the second table's row fails again.
  const std::vector<int64_t> replayed =
      w.write({originless("apples", "old apples"), originless("pears", "old pears")});
  REQUIRE(replayed.size() == 2);
  const std::vector<int64_t> written = w.write({originless("pears", "new pears")});
  CHECK(w.settle(replayed, written) == 1);  // the apples letter applied
  const auto left = w.left();
  // Paired by position alone, the apples letter (the first id) would have taken the pears
  // letter's content and the pears letter would have gone as applied.
  REQUIRE(left.size() == 1);
  REQUIRE(left.count(replayed[1]) == 1);
  CHECK(left.at(replayed[1]).first == "pears");
  CHECK(left.at(replayed[1]).second == "new pears");
}

void letters_of_one_message_pair_by_id_order(letters_world& w) {
  const std::vector<int64_t> replayed =
      w.write({of_message(7, "old 1"), of_message(7, "old 2"), of_message(8, "old 8")});
  // Offset 7 fails again once, offset 8 applies, and offset 9 (not replayed) is new.
  const std::vector<int64_t> written = w.write({of_message(7, "new 1"), of_message(9, "new 9")});
  CHECK(w.settle(replayed, written) == 2);  // the second letter of 7, and 8
  const auto left = w.left();
  REQUIRE(left.size() == 2);
  REQUIRE(left.count(replayed[0]) == 1);
  CHECK(left.at(replayed[0]).second == "new 1");
  REQUIRE(left.count(written[1]) == 1);  // a new letter with no replayed one stays as written
  CHECK(left.at(written[1]).second == "new 9");
  const mdb::result value =
      w.db.conn.query("SELECT value FROM " + w.db.schema.table("dead_letters") + " WHERE id = ?",
                      std::vector{mdb::param::text(std::to_string(replayed[0]))});
  CHECK(value.at(0, 0) == "v7");
}

TEST_CASE("mariadb replay settlement: letters of one message pair by id order, keep their ids") {
  letters_world w("mdb_settle_message");
  letters_of_one_message_pair_by_id_order(w);
}

TEST_CASE("mariadb replay settlement: origins read a few ids at a time pair the same") {
  // A replay page is batch.size letters and MariaDB takes 65,535 placeholders: the origins
  // are read in slices, here two ids each, so the letters of one message span reads.
  letters_world w("mdb_settle_slices", 2);
  letters_of_one_message_pair_by_id_order(w);
}

TEST_CASE("mariadb replay settlement: a batch that wrote no letter removes every replayed one") {
  letters_world w("mdb_settle_applied");
  const std::vector<int64_t> replayed = w.write({of_message(1, "a"), originless("pears", "b")});
  const std::vector<int64_t> other = w.write({of_message(2, "not replayed")});
  CHECK(w.settle(replayed, {}) == 2);
  const auto left = w.left();
  REQUIRE(left.size() == 1);
  CHECK(left.count(other[0]) == 1);
}

}  // namespace
}  // namespace sluice
