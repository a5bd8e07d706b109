// Reassembly of Aurora DSQL chunked records by the PostgreSQL applier, against a real server
// (CTest "sinks.test_sink", label integration): pieces travel through
// <state>.pending_fragments in the batch transaction (sinks/postgres/chunk_store.h). Pieces
// are made by the real DSQL decoder, completed chunks decoded by it, as `sluice run` does.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "core/model/crc32c.h"
#include "schemas/dsql/dsql_decoder.h"
#include "sinks/plan/stream_clock.h"
#include "sinks/postgres/sql/advisory_lock_space.h"
#include "tests/schemas/dsql_records.h"
#include "tests/sinks/pg_test_env.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using testing::dsql_chunk;
using testing::dsql_fragment;
using testing::dsql_principal;

constexpr int64_t minute_ns = 60'000'000'000;
constexpr int64_t t0 = 1'760'000'000'000'000'000;  // a Kafka timestamp, ns

// One test's world: a state schema, a DSQL table public.<unique name> keyed by id, the
// decoder that makes pieces, and a connection to look at the result.
struct chunk_world {
  std::string dsn = testing::test_dsn();
  std::string state = testing::unique_name("sluice_chunks");
  std::string table = testing::unique_name("chunky");
  table_catalog catalog;
  dsql_decoder decoder{catalog, dsql_options{}};
  pqxx::connection look{dsn};
  int64_t next_offset = 0;

  chunk_world() {
    catalog.configure_key("public." + table, {"id"});
    pqxx::work tx(look);
    tx.exec("SET client_min_messages TO warning");
    tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(state) + " CASCADE");
    tx.exec("DROP TABLE IF EXISTS public." + tx.quote_name(table));
    tx.commit();
  }
  ~chunk_world() {
    try {
      pqxx::work tx(look);
      tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(state) + " CASCADE");
      tx.exec("DROP TABLE IF EXISTS public." + tx.quote_name(table));
      tx.commit();
    } catch (...) {
    }
  }

  apply_options options(std::chrono::milliseconds timeout = 15min) {
    apply_options o;
    o.state_schema = state;
    o.connector = "chunks";
    o.chunk_timeout = timeout;
    o.chunk_decoders = [this](std::function<bool()>) {
      return std::make_unique<dsql_decoder>(catalog, dsql_options{});
    };
    return o;
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

  apply_stats apply(test_sink& a, batch_metadata m) { return a.apply({}, {}, {}, m); }

  std::optional<std::string> one(const std::string& sql) {
    pqxx::work tx(look);
    const pqxx::result r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return std::nullopt;
    return r[0][0].as<std::string>();
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql).value_or("0")); }
  // Pieces waiting (not counting the markers of completed chunks, piece -2).
  int64_t pending_pieces() {
    return count("SELECT count(*) FROM \"" + state + "\".pending_fragments WHERE piece <> -2");
  }
  int64_t markers() {
    return count("SELECT count(*) FROM \"" + state + "\".pending_fragments WHERE piece = -2");
  }
  void exec(const std::string& sql) {
    pqxx::work tx(look);
    tx.exec(sql);
    tx.commit();
  }
  int64_t dead_letters() { return count("SELECT count(*) FROM \"" + state + "\".dead_letters"); }
  std::string reasons() {
    return one("SELECT string_agg(reason, ' | ' ORDER BY id) FROM \"" + state + "\".dead_letters")
        .value_or("");
  }
  bool table_exists() {
    return count(
               "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
               "WHERE n.nspname = 'public' AND c.relname = '" +
               table + "'") == 1;
  }
  std::optional<std::string> column(const std::string& name, int id = 7) {
    if (!table_exists()) return std::nullopt;
    return one("SELECT " + name + "::text FROM public.\"" + table +
               "\" WHERE id = " + std::to_string(id));
  }
};

// An image big enough to be worth chunking, with a number that must survive byte for byte.
std::string row_image(int id = 7, std::string_view note = "hello") {
  return R"({"id": )" + std::to_string(id) + R"(, "note": ")" + std::string(note) +
         R"(", "payload": ")" + std::string(3000, 'x') +
         R"(", "big": 123456789012345678901234567890})";
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("chunks: pieces out of order across batches apply once the last one arrives") {
  chunk_world w;
  test_sink applier(w.dsn, w.options());
  const auto c = dsql_chunk("c-ooo", row_image(), 3, "100", "c", w.table);

  apply_stats s = w.apply(applier, w.batch({c.fragments[2]}));
  CHECK(s.pending_chunks == 1);
  CHECK(w.pending_pieces() == 1);
  // Counted outside any batch too (what the runtime does when idle), by another connection.
  test_sink other(w.dsn, w.options());
  CHECK(other.pending_chunks() == 1);
  s = w.apply(applier, w.batch({c.fragments[0], c.principal}));
  CHECK(s.pending_chunks == 1);
  CHECK(s.chunks_completed == 0);
  CHECK(w.pending_pieces() == 3);
  CHECK_FALSE(w.column("note"));  // nothing applied while a piece is missing

  // The last piece completes it: reassembled, checked, decoded and applied in that
  // transaction (the table is created on the way: a second attempt after the DDL).
  s = w.apply(applier, w.batch({c.fragments[1]}));
  CHECK(s.chunks_completed == 1);
  CHECK(s.pending_chunks == 0);
  CHECK(other.pending_chunks() == 0);  // the completed chunk's marker is not a pending chunk
  CHECK(s.upserted == 1);
  CHECK(w.pending_pieces() == 0);
  CHECK(w.dead_letters() == 0);
  CHECK(w.column("note") == "hello");
  CHECK(w.column("big") == "123456789012345678901234567890");
  CHECK(w.column("length(payload)") == "3000");
}

TEST_CASE("chunks: identical redeliveries change nothing, different bytes are a dead letter") {
  chunk_world w;
  test_sink applier(w.dsn, w.options());
  const auto c = dsql_chunk("c-dup", row_image(7, "once"), 3, "100", "c", w.table);

  // Twice in one batch, and again in the next.
  apply_stats s = w.apply(applier, w.batch({c.principal, c.fragments[0], c.fragments[0]}));
  CHECK(s.dead_lettered == 0);
  s = w.apply(applier, w.batch({c.fragments[0], c.principal}));
  CHECK(s.dead_lettered == 0);
  CHECK(w.pending_pieces() == 2);

  // A fragment 1 with other bytes than the pending one: refused, the pending one stays.
  s = w.apply(applier, w.batch({c.fragments[1]}));
  s = w.apply(applier, w.batch({dsql_fragment("c-dup", 1, "something else")}));
  CHECK(s.dead_lettered == 1);
  CHECK(contains(w.reasons(), "chunk c-dup: fragment 1 delivered again with content different"));
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters WHERE value = convert_to('" +
                dsql_fragment("c-dup", 1, "something else") + "', 'UTF8')") == 1);
  // So is a principal naming another checksum for the same chunk.
  s = w.apply(applier, w.batch({dsql_principal("c-dup", 3, 1234, "100", "c", w.table)}));
  CHECK(s.dead_lettered == 1);
  CHECK(contains(w.reasons(), "chunk c-dup: principal record delivered again"));

  s = w.apply(applier, w.batch({c.fragments[2], c.fragments[2]}));
  CHECK(s.chunks_completed == 1);
  CHECK(w.column("note") == "once");
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("chunks: pieces redelivered after their chunk completed are dropped, not dead letters") {
  chunk_world w;
  test_sink applier(w.dsn, w.options());
  const auto c = dsql_chunk("c-again", row_image(7, "first"), 2, "100", "c", w.table);
  apply_stats s = w.apply(applier, w.batch({c.fragments[1], c.principal, c.fragments[0]}, t0));
  CHECK(s.chunks_completed == 1);
  CHECK(w.column("note") == "first");
  w.exec("UPDATE public.\"" + w.table + "\" SET note = 'touched'");

  // DSQL sends some of it again, in later batches: nothing waits, nothing is dead-lettered,
  // nothing is applied twice.
  s = w.apply(applier, w.batch({c.fragments[0]}, t0 + minute_ns));
  s = w.apply(applier, w.batch({c.principal, c.fragments[1]}, t0 + 2 * minute_ns));
  CHECK(s.chunks_completed == 0);
  CHECK(s.pending_chunks == 0);
  CHECK(w.dead_letters() == 0);
  CHECK(w.column("note") == "touched");
  CHECK(w.pending_pieces() == 0);
  CHECK(w.markers() == 1);

  // The marker goes chunk.timeout of stream time after completion, silently.
  s = w.apply(applier, w.batch({}, t0 + 16 * minute_ns));
  CHECK(s.chunks_expired == 0);
  CHECK(w.markers() == 0);
  CHECK(w.dead_letters() == 0);
}

TEST_CASE("chunks: a CRC32C mismatch sends the chunk's pieces to the dead letters, not the row") {
  chunk_world w;
  test_sink applier(w.dsn, w.options());
  const std::string text = row_image(7, "crc");
  const auto parts = testing::split_text(text, 2);
  const std::string principal = dsql_principal("c-crc", 2, crc32c(text) ^ 1, "100", "c", w.table);

  apply_stats s = w.apply(applier, w.batch({principal, dsql_fragment("c-crc", 0, parts[0]),
                                            dsql_fragment("c-crc", 1, parts[1])}));
  CHECK(s.chunks_completed == 1);
  CHECK(s.upserted == 0);
  CHECK(s.dead_lettered == 3);
  CHECK_FALSE(w.column("note"));
  CHECK(w.pending_pieces() == 0);
  CHECK(contains(w.reasons(), "chunk c-crc: CRC32C mismatch"));
  // The pieces' bytes are kept: the principal as consumed, the fragments as fragment records.
  CHECK(w.count("SELECT count(*) FROM \"" + w.state +
                "\".dead_letters WHERE convert_from(value, 'UTF8') = '" + principal + "'") == 1);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state +
                "\".dead_letters WHERE convert_from(value, 'UTF8')::jsonb ->> 'data' = '" +
                parts[1] + "' AND topic = 'dsql.cdc' AND kafka_offset = 2") == 1);
}

TEST_CASE("chunks: a fragment beyond total_fragments spoils its chunk: all pieces dead-lettered") {
  chunk_world w;
  test_sink applier(w.dsn, w.options());
  const auto c = dsql_chunk("c-stray", row_image(7, "stray"), 2, "100", "c", w.table);
  apply_stats s = w.apply(applier, w.batch({dsql_fragment("c-stray", 5, "??"), c.fragments[0]}));
  CHECK(s.chunks_completed == 0);
  s = w.apply(applier, w.batch({c.principal, c.fragments[1]}));
  CHECK(s.chunks_completed == 1);
  CHECK(s.dead_lettered == 4);
  CHECK(contains(w.reasons(), "chunk c-stray: a fragment's index is beyond total_fragments 2"));
  CHECK_FALSE(w.column("note"));
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("chunks: an incomplete chunk expires in stream time, never in wall time") {
  chunk_world w;
  test_sink applier(w.dsn, w.options(1s));
  const auto c = dsql_chunk("c-late", row_image(), 3, "100", "c", w.table);
  apply_stats s = w.apply(applier, w.batch({c.principal, c.fragments[0]}, t0));
  CHECK(s.pending_chunks == 1);

  // Wall time passes the timeout, Kafka time does not (a catch-up after downtime): kept.
  std::this_thread::sleep_for(1500ms);
  s = w.apply(applier, w.batch({}, t0 + 500'000'000));
  CHECK(s.chunks_expired == 0);
  CHECK(s.pending_chunks == 1);
  CHECK(w.pending_pieces() == 2);

  // Kafka time moves past it: the pieces go to the dead letters, saying what was missing.
  s = w.apply(applier, w.batch({}, t0 + 1'500'000'000));
  CHECK(s.chunks_expired == 1);
  CHECK(s.pending_chunks == 0);
  CHECK(s.dead_lettered == 2);
  CHECK(w.pending_pieces() == 0);
  CHECK(contains(w.reasons(), "chunk c-late expired incomplete after chunk.timeout"));
  CHECK(contains(w.reasons(), "missing fragment(s) 1, 2 of 3"));
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters WHERE value IS NULL") == 0);

  // Fragments without a principal expire too, and say so.
  s = w.apply(applier, w.batch({dsql_fragment("c-orphan", 1, "x")}, t0 + 2 * minute_ns));
  CHECK(s.pending_chunks == 1);
  s = w.apply(applier, w.batch({}, t0 + 3 * minute_ns));
  CHECK(s.chunks_expired == 1);
  CHECK(contains(w.reasons(), "chunk c-orphan expired incomplete"));
  CHECK(contains(w.reasons(), "the principal record"));
  CHECK_FALSE(w.column("note"));
}

TEST_CASE("chunks: one message stamped far in the future does not expire the pending chunks") {
  chunk_world w;
  test_sink applier(w.dsn, w.options(15min));
  const int64_t now = stream_clock::system_now().value();
  const auto c = dsql_chunk("c-future", row_image(7, "kept"), 2, "100", "c", w.table);
  apply_stats s = w.apply(applier, w.batch({c.principal}, now));
  CHECK(s.pending_chunks == 1);

  // A batch whose newest message claims to be a year ahead: the stream clock stops a minute
  // past wall time, far short of the chunk's 15 minutes.
  s = w.apply(applier, w.batch({}, now + 365 * 24 * 60 * minute_ns));
  CHECK(s.chunks_expired == 0);
  CHECK(s.pending_chunks == 1);
  CHECK(w.pending_pieces() == 1);

  s = w.apply(applier, w.batch({c.fragments[0], c.fragments[1]}, now + minute_ns));
  CHECK(s.chunks_completed == 1);
  CHECK(w.dead_letters() == 0);
  CHECK(w.column("note") == "kept");
}

TEST_CASE("chunks: a chunk over chunk.max.bytes is refused by its size in SQL, unread") {
  chunk_world w;
  apply_options o = w.options();
  o.chunk_max_bytes = 2000;  // the image is about 3 kB
  test_sink applier(w.dsn, o);
  const auto c = dsql_chunk("c-big", row_image(7, "too big"), 3, "100", "c", w.table);

  apply_stats s = w.apply(applier, w.batch({c.principal, c.fragments[0], c.fragments[1]}));
  CHECK(s.pending_chunks == 1);
  CHECK(s.dead_lettered == 0);  // incomplete: waits, whatever its size so far
  s = w.apply(applier, w.batch({c.fragments[2]}));
  CHECK(s.chunks_completed == 1);
  CHECK(s.pending_chunks == 0);
  CHECK(s.dead_lettered == 4);
  CHECK(w.pending_pieces() == 0);
  CHECK(w.markers() == 1);  // a redelivery is dropped, as for a completed chunk
  CHECK_FALSE(w.column("note"));
  CHECK(contains(w.reasons(), "chunk c-big: its fragments hold "));
  CHECK(contains(w.reasons(), "more than chunk.max.bytes (2000)"));
  // The principal keeps its record; the fragments' bytes were never read back.
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters WHERE value IS NULL") == 3);

  // Within the limit, the same chunk applies.
  apply_options roomy = w.options();
  roomy.chunk_max_bytes = 4000;
  test_sink other(w.dsn, roomy);
  const auto d = dsql_chunk("c-fits", row_image(8, "fits"), 3, "100", "c", w.table);
  s = w.apply(other, w.batch({d.principal, d.fragments[0], d.fragments[1], d.fragments[2]}));
  CHECK(s.chunks_completed == 1);
  CHECK(w.column("note", 8) == "fits");
}

TEST_CASE("chunks: an expiring chunk over chunk.max.bytes is dead-lettered without its bytes") {
  chunk_world w;
  apply_options o = w.options(1s);
  o.chunk_max_bytes = 1000;
  test_sink applier(w.dsn, o);
  const auto c = dsql_chunk("c-big-late", row_image(), 3, "100", "c", w.table);
  apply_stats s = w.apply(applier, w.batch({c.fragments[0], c.fragments[1]}, t0));
  CHECK(s.pending_chunks == 1);
  s = w.apply(applier, w.batch({}, t0 + minute_ns));
  CHECK(s.chunks_expired == 1);
  CHECK(s.dead_lettered == 2);
  CHECK(contains(w.reasons(),
                 "chunk c-big-late expired incomplete after chunk.timeout and: its "
                 "fragments hold"));
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".dead_letters WHERE value IS NULL") == 2);
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("chunks: pieces stored before a restart complete with a new applier") {
  chunk_world w;
  const auto c = dsql_chunk("c-restart", row_image(7, "survived"), 2, "100", "c", w.table);
  {
    test_sink before(w.dsn, w.options());
    w.apply(before, w.batch({c.principal, c.fragments[1]}));
  }
  test_sink after(w.dsn, w.options());
  const apply_stats s = w.apply(after, w.batch({c.fragments[0]}, t0 + minute_ns));
  CHECK(s.chunks_completed == 1);
  CHECK(w.column("note") == "survived");
  CHECK(w.pending_pieces() == 0);
}

TEST_CASE("chunks: two appliers holding different pieces of one chunk at once apply it once") {
  chunk_world w;
  const auto c = dsql_chunk("c-race", row_image(7, "raced"), 4, "100", "c", w.table);
  test_sink a(w.dsn, w.options());
  test_sink b(w.dsn, w.options());
  a.start();
  b.start();
  // The table exists beforehand, so that neither needs DDL while the other waits.
  {
    test_sink prep(w.dsn, w.options());
    const auto warm = dsql_chunk("c-warm", row_image(8, "warm"), 1, "50", "c", w.table);
    w.apply(prep, w.batch({warm.principal, warm.fragments[0]}));
    REQUIRE(w.column("note", 8) == "warm");
  }
  batch_metadata first = w.batch({c.principal, c.fragments[0]}, t0, 0);
  batch_metadata second = w.batch({c.fragments[1], c.fragments[2], c.fragments[3]}, t0, 1);

  // Hold the chunk's lock so that both transactions have stored their pieces and wait on it
  // together: each alone sees an incomplete set.
  pqxx::connection holder(w.dsn);
  const uint32_t h =
      crc32c_extend(crc32c_extend(crc32c("chunks"), std::string_view("\0", 1)), "c-race");
  pqxx::nontransaction(holder).exec_params("SELECT pg_advisory_lock($1, $2)",
                                           advisory_lock_space::chunk, static_cast<int32_t>(h));
  apply_stats sa, sb;
  std::thread ta([&] { sa = w.apply(a, first); });
  std::thread tb([&] { sb = w.apply(b, second); });
  bool both_waiting = false;
  for (int i = 0; i < 200 && !both_waiting; ++i) {
    both_waiting = w.count(
                       "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
                       "NOT granted AND classid = " +
                       std::to_string(static_cast<uint32_t>(advisory_lock_space::chunk))) == 2;
    if (!both_waiting) std::this_thread::sleep_for(25ms);
  }
  CHECK(both_waiting);
  pqxx::nontransaction(holder).exec_params("SELECT pg_advisory_unlock($1, $2)",
                                           advisory_lock_space::chunk, static_cast<int32_t>(h));
  ta.join();
  tb.join();

  CHECK(sa.chunks_completed + sb.chunks_completed == 1);
  CHECK(sa.upserted + sb.upserted == 1);
  CHECK(w.column("note") == "raced");
  CHECK(w.pending_pieces() == 0);
  CHECK(w.dead_letters() == 0);
}

}  // namespace sluice
