// Reassembly of Aurora DSQL chunked records on MariaDB, against a real server (the `mariadb`
// fixture): pieces travel through <state>.pending_fragments in the batch transaction
// (sinks/mariadb/state/chunk_store.h), as on PostgreSQL
// (tests/sinks/chunk_store_integration_test.cc, whose main cases these mirror). Pieces are made by
// the real DSQL decoder, completed chunks decoded by it, as `sluice run` does.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/crc32c.h"
#include "schemas/dsql/dsql_decoder.h"
#include "sinks/mariadb/batch_applier.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/state/chunk_store.h"
#include "sinks/mariadb/state_reader.h"
#include "tests/schemas/dsql_records.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using testing::dsql_chunk;
using testing::dsql_fragment;
using testing::dsql_principal;

constexpr int64_t minute_ns = 60'000'000'000;
constexpr int64_t t0 = 1'760'000'000'000'000'000;  // a Kafka timestamp, ns

// One test's world: a state database of its own, a DSQL table public.<unique name> keyed by
// id, the decoder that makes pieces (and decodes completed chunks).
struct chunk_world {
  testing::state_test_db db{"sluice_chunks"};
  std::string table = testing::unique_name("chunky");
  table_catalog catalog;
  dsql_decoder decoder{catalog, dsql_options{}};
  int64_t next_offset = 0;

  chunk_world() { catalog.configure_key("public." + table, {"id"}); }
  ~chunk_world() {
    try {
      db.conn.exec("DROP TABLE IF EXISTS `public`." + mdb::quote_identifier(table));
    } catch (...) {
    }
  }

  // The pieces DSQL records decode to, as consumed at Kafka time ts (ns) on a partition.
  batch_metadata batch(const std::vector<std::string>& records, int64_t ts = t0,
                       int32_t partition = 0) {
    batch_metadata m;
    decode_output out;
    for (const std::string& r : records) {
      raw_message msg;
      msg.topic = "dsql.cdc";
      msg.partition = partition_id{partition};
      msg.offset = kafka_offset{next_offset++};
      msg.timestamp = timestamp_ns{ts};
      msg.value = r;
      const auto err = decoder.decode(msg, out);
      REQUIRE_MESSAGE(!err, err->message);
    }
    REQUIRE(out.changes.empty());
    m.pieces = std::move(out.pieces);
    m.stream_time = timestamp_ns{ts};
    return m;
  }

  // One batch's chunk work in its own transaction, as the applier runs it.
  chunk_outcome process(mdb::chunk_store& store, const batch_metadata& m) {
    return db.in_tx(
        [&](mdb::connection& c) { return store.process(c, m.pieces, m.stream_time, &decoder); });
  }

  std::optional<std::string> one(const std::string& sql) {
    const mdb::result r = db.conn.query(sql);
    if (r.empty()) return std::nullopt;
    return r.at(0, 0);
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql).value_or("0")); }
  std::string state(const std::string& name) { return db.schema.table(name); }
  // Pieces waiting (not counting the markers of completed chunks, piece -2).
  int64_t pending_pieces() {
    return count("SELECT count(*) FROM " + state("pending_fragments") + " WHERE piece <> -2");
  }
  int64_t markers() {
    return count("SELECT count(*) FROM " + state("pending_fragments") + " WHERE piece = -2");
  }
  int64_t dead_letters() { return count("SELECT count(*) FROM " + state("dead_letters")); }
  std::string reasons() {
    return one("SELECT GROUP_CONCAT(reason ORDER BY id SEPARATOR ' | ') FROM " +
               state("dead_letters"))
        .value_or("");
  }
  std::optional<std::string> column(const std::string& expr, int id = 7) {
    if (count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' "
              "AND table_name = '" +
              table + "'") == 0) {
      return std::nullopt;
    }
    return one("SELECT " + expr + " FROM `public`." + mdb::quote_identifier(table) +
               " WHERE id = " + std::to_string(id));
  }

  // The applier side: a session on the test server with this world's state database.
  session_options session() {
    session_options o;
    o.dsn = testing::mariadb_dsn();
    o.state_schema = db.name;
    return o;
  }
  apply_options options(std::chrono::milliseconds timeout = 15min) {
    apply_options o;
    o.state_schema = db.name;
    o.connector = "chunks";
    o.chunk_timeout = timeout;
    o.chunk_decoders = [this](std::function<bool()>) {
      return std::make_unique<dsql_decoder>(catalog, dsql_options{});
    };
    return o;
  }
};

retry_policy quick() {
  retry_policy p;
  p.backoff_initial = 10ms;
  p.backoff_max = 50ms;
  p.statement_attempts = 5;
  p.stall_after_attempts = false;
  return p;
}

// An image big enough to be worth chunking.
std::string row_image(int id = 7, std::string_view note = "hello") {
  return R"({"id": )" + std::to_string(id) + R"(, "note": ")" + std::string(note) +
         R"(", "payload": ")" + std::string(3000, 'x') + R"("})";
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("mariadb chunks: pieces in any order across batches complete once, then are dropped") {
  chunk_world w;
  mdb::chunk_store store(w.db.schema, "chunks", 15min);
  const auto c = dsql_chunk("c-ooo", row_image(), 3, "100", "c", w.table);

  chunk_outcome o = w.process(store, w.batch({c.fragments[2]}));
  CHECK(o.pending == 1);
  CHECK(o.completed == 0);
  CHECK(store.count_pending(w.db.conn) == 1);
  // Identical redeliveries, in one batch and across batches, change nothing.
  o = w.process(store, w.batch({c.fragments[0], c.principal, c.fragments[0]}));
  CHECK(o.pending == 1);
  CHECK(o.completed == 0);
  CHECK(o.dead_letters.empty());
  CHECK(w.pending_pieces() == 3);

  // The last piece completes it: read back, checked and decoded, in that transaction.
  o = w.process(store, w.batch({c.fragments[1], c.fragments[2]}));
  CHECK(o.completed == 1);
  CHECK(o.pending == 0);
  CHECK(o.dead_letters.empty());
  REQUIRE(o.changes.size() == 1);
  CHECK(o.changes[0].table->name.table == w.table);
  CHECK(w.pending_pieces() == 0);
  CHECK(w.markers() == 1);
  CHECK(store.count_pending(w.db.conn) == 0);  // a marker is not a pending chunk

  // Pieces sent again after completion are dropped, neither waiting nor dead-lettered.
  o = w.process(store, w.batch({c.principal, c.fragments[1]}, t0 + minute_ns));
  CHECK(o.completed == 0);
  CHECK(o.redelivered_late == 2);
  CHECK(o.dead_letters.empty());
  CHECK(o.pending == 0);
  // The marker goes chunk.timeout of stream time after completion, silently.
  o = w.process(store, w.batch({}, t0 + 16 * minute_ns));
  CHECK(o.expired == 0);
  CHECK(w.markers() == 0);
}

TEST_CASE("mariadb chunks: a piece delivered again with other content is a dead letter") {
  chunk_world w;
  mdb::chunk_store store(w.db.schema, "chunks", 15min);
  const auto c = dsql_chunk("c-dup", row_image(7, "once"), 3, "100", "c", w.table);
  chunk_outcome o = w.process(store, w.batch({c.principal, c.fragments[1]}));
  CHECK(o.dead_letters.empty());

  o = w.process(store, w.batch({dsql_fragment("c-dup", 1, "something else"),
                                dsql_principal("c-dup", 3, 1234, "100", "c", w.table)}));
  REQUIRE(o.dead_letters.size() == 2);
  CHECK(contains(o.dead_letters[0].reason,
                 "chunk c-dup: principal record delivered again with content different"));
  CHECK(contains(o.dead_letters[1].reason,
                 "chunk c-dup: fragment 1 delivered again with content different"));
  CHECK(o.dead_letters[1].value == dsql_fragment("c-dup", 1, "something else"));

  // The pending ones stay, and complete the chunk.
  o = w.process(store, w.batch({c.fragments[0], c.fragments[2]}));
  CHECK(o.completed == 1);
  CHECK(o.changes.size() == 1);
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("mariadb chunks: a CRC32C mismatch sends the chunk's pieces to the dead letters") {
  chunk_world w;
  mdb::chunk_store store(w.db.schema, "chunks", 15min);
  const std::string text = row_image(7, "crc");
  const auto parts = testing::split_text(text, 2);
  const std::string principal = dsql_principal("c-crc", 2, crc32c(text) ^ 1, "100", "c", w.table);

  const chunk_outcome o = w.process(store, w.batch({principal, dsql_fragment("c-crc", 0, parts[0]),
                                                    dsql_fragment("c-crc", 1, parts[1])}));
  CHECK(o.completed == 1);
  CHECK(o.changes.empty());
  REQUIRE(o.dead_letters.size() == 3);
  CHECK(contains(o.dead_letters[0].reason, "chunk c-crc: CRC32C mismatch"));
  // The pieces' bytes are kept: the principal as consumed, the fragments as fragment records,
  // each with its origin.
  CHECK(o.dead_letters[0].value == principal);
  CHECK(o.dead_letters[2].value == dsql_fragment("c-crc", 1, parts[1]));
  CHECK(o.dead_letters[2].origin.topic == "dsql.cdc");
  CHECK(o.dead_letters[2].origin.offset.value() == 2);
  CHECK(o.dead_letters[2].origin.timestamp.value() == t0);
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("mariadb chunks: an incomplete chunk expires in stream time, never in wall time") {
  chunk_world w;
  mdb::chunk_store store(w.db.schema, "chunks", 1s);
  const auto c = dsql_chunk("c-late", row_image(), 3, "100", "c", w.table);
  chunk_outcome o = w.process(store, w.batch({c.principal, c.fragments[0]}, t0));
  CHECK(o.pending == 1);

  // Wall time passes the timeout, Kafka time does not: kept.
  std::this_thread::sleep_for(1500ms);
  o = w.process(store, w.batch({}, t0 + 500'000'000));
  CHECK(o.expired == 0);
  CHECK(o.pending == 1);

  // Kafka time moves past it: the pieces go to the dead letters, saying what was missing.
  o = w.process(store, w.batch({}, t0 + 1'500'000'000));
  CHECK(o.expired == 1);
  CHECK(o.pending == 0);
  REQUIRE(o.dead_letters.size() == 2);
  CHECK(contains(o.dead_letters[0].reason, "chunk c-late expired incomplete after chunk.timeout"));
  CHECK(contains(o.dead_letters[0].reason, "missing fragment(s) 1, 2 of 3"));
  CHECK(o.dead_letters[0].value == c.principal);
  CHECK(w.pending_pieces() == 0);

  // Fragments without a principal expire too, and say so.
  o = w.process(store, w.batch({dsql_fragment("c-orphan", 1, "x")}, t0 + 2 * minute_ns));
  CHECK(o.pending == 1);
  o = w.process(store, w.batch({}, t0 + 3 * minute_ns));
  CHECK(o.expired == 1);
  REQUIRE(o.dead_letters.size() == 1);
  CHECK(contains(o.dead_letters[0].reason, "the principal record"));
}

TEST_CASE("mariadb chunks: a chunk over chunk.max.bytes is refused by its size in SQL, unread") {
  chunk_world w;
  mdb::chunk_store store(w.db.schema, "chunks", 1s, 2000);  // the image is about 3 kB
  const auto c = dsql_chunk("c-big", row_image(7, "too big"), 3, "100", "c", w.table);
  chunk_outcome o = w.process(store, w.batch({c.principal, c.fragments[0], c.fragments[1]}));
  CHECK(o.pending == 1);
  CHECK(o.dead_letters.empty());  // incomplete: waits, whatever its size so far
  o = w.process(store, w.batch({c.fragments[2]}));
  CHECK(o.completed == 1);
  CHECK(o.changes.empty());
  REQUIRE(o.dead_letters.size() == 4);
  CHECK(contains(o.dead_letters[0].reason, "more than chunk.max.bytes (2000)"));
  CHECK(o.dead_letters[0].value == c.principal);
  CHECK_FALSE(o.dead_letters[1].value);  // the fragments' bytes were never read back
  CHECK(w.markers() == 1);

  // Expiring, too: without its bytes.
  const auto d = dsql_chunk("c-big-late", row_image(), 3, "100", "c", w.table);
  o = w.process(store, w.batch({d.fragments[0], d.fragments[1]}, t0));
  o = w.process(store, w.batch({}, t0 + minute_ns));
  CHECK(o.expired == 1);
  REQUIRE(o.dead_letters.size() == 2);
  CHECK(contains(o.dead_letters[0].reason,
                 "expired incomplete after chunk.timeout and: its "
                 "fragments hold"));
  CHECK_FALSE(o.dead_letters[0].value);
}

TEST_CASE("mariadb chunks: two writers holding different pieces of one chunk complete it once") {
  chunk_world w;
  mdb::chunk_store a(w.db.schema, "chunks", 15min);
  mdb::chunk_store b(w.db.schema, "chunks", 15min);
  const auto c = dsql_chunk("c-race", row_image(7, "raced"), 4, "100", "c", w.table);
  const batch_metadata first = w.batch({c.principal, c.fragments[0]}, t0, 0);
  const batch_metadata second = w.batch({c.fragments[1], c.fragments[2], c.fragments[3]}, t0, 1);
  mdb::connection other(testing::state_test_db::settings());

  // The first stores its pieces and holds the chunk's lock, uncommitted; the second waits on
  // it, then sees the first's pieces once they are committed.
  w.db.conn.exec("START TRANSACTION");
  const chunk_outcome oa = a.process(w.db.conn, first.pieces, first.stream_time, &w.decoder);
  CHECK(oa.completed == 0);
  std::optional<chunk_outcome> ob;
  std::thread tb([&] {
    ob = testing::state_test_db::in_tx(other, [&](mdb::connection& conn) {
      return b.process(conn, second.pieces, second.stream_time, &w.decoder);
    });
  });
  std::this_thread::sleep_for(300ms);
  CHECK_FALSE(ob);  // waiting on the chunk's lock row
  w.db.conn.exec("COMMIT");
  tb.join();
  REQUIRE(ob);
  CHECK(ob->completed == 1);
  CHECK(ob->changes.size() == 1);
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("mariadb chunks: a DSQL chunked record through the batch applier creates its table") {
  chunk_world w;
  mdb::mdb_session session(w.session(), quick(), "apply");
  mdb::batch_applier applier(session, w.options());
  const auto c = dsql_chunk("c-apply", row_image(7, "applied"), 3, "100", "c", w.table);

  apply_result r = applier.apply({}, {}, {}, w.batch({c.fragments[2], c.principal}));
  CHECK(r.outcome == apply_outcome::committed);
  CHECK(r.stats.pending_chunks == 1);
  CHECK_FALSE(w.column("note"));  // nothing applied while a piece is missing
  mdb::mdb_session reading(w.session(), quick(), "read");
  mdb::state_reader reader(reading, "chunks");
  CHECK(reader.pending_chunks() == 1);

  // The last piece completes it: the table does not exist, so the attempt rolls back, the
  // DDL runs outside the transaction, and the batch runs again.
  r = applier.apply({}, {}, {}, w.batch({c.fragments[1], c.fragments[0]}));
  CHECK(r.outcome == apply_outcome::committed);
  CHECK(r.stats.chunks_completed == 1);
  CHECK(r.stats.pending_chunks == 0);
  CHECK(r.stats.upserted == 1);
  CHECK(r.stats.attempts == 2);
  CHECK(w.column("note") == "applied");
  CHECK(w.column("length(payload)") == "3000");
  CHECK(reader.pending_chunks() == 0);
  CHECK(w.dead_letters() == 0);

  // A chunk that fails its check is a dead letter in the target, the row untouched.
  const std::string text = row_image(7, "spoiled");
  const auto parts = testing::split_text(text, 2);
  r = applier.apply(
      {}, {}, {},
      w.batch({dsql_principal("c-bad", 2, crc32c(text) ^ 1, "200", "c", w.table),
               dsql_fragment("c-bad", 0, parts[0]), dsql_fragment("c-bad", 1, parts[1])}));
  CHECK(r.outcome == apply_outcome::committed);
  CHECK(r.stats.chunks_completed == 1);
  CHECK(r.stats.dead_lettered == 3);
  CHECK(w.dead_letters() == 3);
  CHECK(contains(w.reasons(), "chunk c-bad: CRC32C mismatch"));
  CHECK(w.column("note") == "applied");
}

}  // namespace sluice
