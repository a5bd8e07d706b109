#include "schemas/dsql/dsql_decoder.h"

#include "core/model/crc32c.h"
#include "tests/schemas/dsql_records.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

using parts = std::vector<csn_part>;

// The seed's examples (seed 004), as DSQL sends them (the seed's prose around them is
// machine-translated; the JSON itself is well-formed).
constexpr const char* seed_insert = R"json({
    "type": "full",
    "op": "c",
    "before": null,
    "after": {"order_id": 1001, "item_id": 42, "quantity": 5, "price": "29.99"},
    "source": {
        "version": "1.0",
        "ts_ms": 1705318200000,
        "ts_ns": 1705318200000000000,
        "txId": "ffthunp5stx6ffs2vyfqoatmfu",
        "schema": "public",
        "table": "order_items",
        "db": "postgres",
        "cluster": "kmabugltfmjdaj2siqr2qbxgju"
    },
    "ts_ms": 1705318200125,
    "ts_ns": 1705318200125483291
})json";

constexpr const char* seed_update = R"json({
    "type": "full",
    "op": "u",
    "before": null,
    "after": {"order_id": 1001, "item_id": 42, "quantity": 10, "price": "29.99"},
    "source": {
        "version": "1.0",
        "ts_ms": 1705318300000,
        "ts_ns": 1705318300000000000,
        "txId": "qvtiesgmd55cvlfukm3dfuotji",
        "schema": "public",
        "table": "order_items",
        "db": "postgres",
        "cluster": "kmabugltfmjdaj2siqr2qbxgju"
    },
    "ts_ms": 1705318300125,
    "ts_ns": 1705318300125483291
})json";

constexpr const char* seed_delete = R"json({
    "type": "full",
    "op": "d",
    "before": {"order_id": 1001, "item_id": 42},
    "after": null,
    "source": {
        "version": "1.0",
        "ts_ms": 1705318400000,
        "ts_ns": 1705318400000000000,
        "txId": "xyzabc123def456ghi789jklmno",
        "schema": "public",
        "table": "order_items",
        "db": "postgres",
        "cluster": "kmabugltfmjdaj2siqr2qbxgju"
    },
    "ts_ms": 1705318400125,
    "ts_ns": 1705318400125483291
})json";

// The seed's chunked principal record and fragment (the fragment's shape as described).
constexpr const char* seed_chunked = R"json({
    "type": "chunked",
    "op": "c",
    "before": null,
    "after": null,
    "source": {
        "version": "1.0",
        "ts_ms": 1705318200000,
        "ts_ns": 1705318200000000000,
        "txId": "ffthunp5stx6ffs2vyfqoatmfu",
        "schema": "public",
        "table": "order_items",
        "db": "postgres",
        "cluster": "cluster-id"
    },
    "chunked": {
        "after": {
            "chunk_id": "chunk-id",
            "total_fragments": 3,
            "crc32c": "2073618257"
        }
    },
    "ts_ms": 1705318200125,
    "ts_ns": 1705318200125483291
})json";

constexpr const char* seed_fragment = R"json({
    "type": "fragment",
    "chunk_id": "chunk-id",
    "index": 0,
    "data": "partial-JSON-text"
})json";

// A record of table public.t with the given op, images and timestamps.
std::string record(std::string_view op, std::string_view before, std::string_view after,
                   std::string_view source_ts_ns, std::string_view top_ts_ns = "1",
                   std::string_view tx = "tx1") {
  return R"({"type":"full","op":")" + std::string(op) + R"(","before":)" + std::string(before) +
         R"(,"after":)" + std::string(after) + R"(,"source":{"version":"1.0","ts_ms":1,"ts_ns":)" +
         std::string(source_ts_ns) + R"(,"txId":")" + std::string(tx) +
         R"(","schema":"public","table":"t","db":"postgres","cluster":"c1"},
    "ts_ms":1,"ts_ns":)" +
         std::string(top_ts_ns) + "}";
}

struct fixture {
  table_catalog catalog;
  dsql_decoder decoder{catalog, dsql_options{}};
  decode_output out;

  result<change> decode(std::optional<std::string_view> json, int64_t offset = 5) {
    raw_message msg;
    msg.topic = "dsql.cdc";
    msg.partition = partition_id{1};
    msg.offset = kafka_offset{offset};
    msg.timestamp = timestamp_ns{1'700'000'000'000'000'000};
    msg.value = json;
    out.clear();
    if (auto err = decoder.decode(msg, out)) {
      CHECK(out.empty());  // never a partial result
      return *err;
    }
    REQUIRE(out.changes.size() == 1);
    return std::move(out.changes[0]);
  }

  change ok(std::string_view json) {
    auto c = decode(json);
    if (!c) FAIL_CHECK(c.err().message);
    REQUIRE(c.ok());
    return std::move(*c);
  }

  chunk_piece piece(std::string_view json, int64_t offset = 5) {
    raw_message msg;
    msg.topic = "dsql.cdc";
    msg.partition = partition_id{1};
    msg.offset = kafka_offset{offset};
    msg.value = json;
    out.clear();
    const auto err = decoder.decode(msg, out);
    if (err) FAIL_CHECK(err->message);
    REQUIRE(out.pieces.size() == 1);
    CHECK(out.changes.empty());
    return out.pieces[0];
  }

  error fails(std::string_view json) {
    auto c = decode(json);
    REQUIRE_FALSE(c.ok());
    return c.err();
  }
};

const value* column(const change& c, std::string_view name) {
  for (const column_value& cv : c.after) {
    if (cv.name == name) return &cv.v;
  }
  return nullptr;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

TEST_CASE("DSQL: the seed's insert, update and delete decode to one row's history in order") {
  fixture f;
  f.catalog.configure_key("public.order_items", {"order_id", "item_id"});
  const change insert = f.ok(seed_insert);
  const change update = f.ok(seed_update);
  const change remove = f.ok(seed_delete);

  CHECK(insert.table->name.qualified() == "postgres.public.order_items");
  CHECK(insert.table == update.table);
  CHECK(insert.op == op_kind::upsert);
  CHECK(update.op == op_kind::upsert);
  CHECK(remove.op == op_kind::remove);
  CHECK(insert.key == update.key);
  CHECK(update.key == remove.key);
  CHECK(insert.key.columns == std::vector<std::string>{"order_id", "item_id"});
  CHECK(insert.key.values == std::vector<value>{value::number("1001"), value::number("42")});
  CHECK(insert.seq < update.seq);
  CHECK(update.seq < remove.seq);
  CHECK(insert.seq.parts() ==
        parts{int64_t{1}, int64_t{1705318200000000000}, std::string("ffthunp5stx6ffs2vyfqoatmfu")});
  CHECK(*column(update, "quantity") == value::number("10"));
  CHECK(*column(update, "price") == value::string("29.99"));
  CHECK(update.after.size() == 4);
  CHECK_FALSE(update.partial);
  CHECK(remove.after.size() == 2);  // the key, as before gave it
  CHECK(insert.source.tx == "ffthunp5stx6ffs2vyfqoatmfu");
  CHECK(insert.source.source_ts == timestamp_ns{1705318200000000000});
  CHECK(insert.source.read == read_method::cdc);
  CHECK(insert.source.origin.topic == "dsql.cdc");
  CHECK(insert.source.origin.partition == partition_id{1});
  CHECK(insert.source.origin.offset == kafka_offset{5});
}

TEST_CASE("DSQL: c is an upsert, whether it inserts or updates") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  const change first = f.ok(record("c", "null", R"({"id":1,"v":"a"})", "100"));
  const change again = f.ok(record("c", "null", R"({"id":1,"v":"b"})", "200"));
  CHECK(first.op == op_kind::upsert);
  CHECK(again.op == op_kind::upsert);
  CHECK(first.key == again.key);
  CHECK(first.seq < again.seq);
}

TEST_CASE(
    "DSQL: a delete's before is its key, even without configuration, in the known key order") {
  fixture f;
  const change unconfigured = f.ok(record("d", R"({"id":1})", "null", "100"));
  CHECK(unconfigured.op == op_kind::remove);
  CHECK(unconfigured.key.columns == std::vector<std::string>{"id"});

  // Known key columns fix the order, whatever order before lists them in.
  fixture g;
  g.catalog.configure_key("public.t", {"a", "b"});
  const change upsert = g.ok(record("u", "null", R"({"a":1,"b":"x","v":0})", "100"));
  const change remove = g.ok(record("d", R"({"b":"x","a":1})", "null", "200"));
  CHECK(remove.key == upsert.key);
  CHECK(remove.key.columns == std::vector<std::string>{"a", "b"});

  const error no_key = g.fails(record("d", R"({"b":"x"})", "null", "300"));
  CHECK(no_key.code == error_code::missing_key);
  CHECK(contains(no_key.message, "\"a\""));
  fixture h;
  CHECK(h.fails(record("d", "null", "null", "300")).code == error_code::missing_key);
}

TEST_CASE("DSQL: key columns learned into the catalog key inserts and updates") {
  fixture f;
  table_entry* t = f.catalog.intern(table_name{"postgres", "public", "t"});
  t->key_columns = {"id"};  // as the connector learns it from the target's primary key
  t->columns = {column_info{"id", "bigint", column_class::numeric, false, true, {}}};
  const change c = f.ok(record("c", "null", R"({"id":"7","v":1})", "100"));
  CHECK(c.key.values == std::vector<value>{value::number("7")});  // numeric: "7" is 7
}

TEST_CASE("DSQL: without configured key columns the target's primary key is asked for, once") {
  fixture f;
  int asked = 0;
  f.catalog.set_key_resolver([&](const table_name& source, std::string_view topic) {
    ++asked;
    CHECK(source.qualified() == "postgres.public.t");
    CHECK(topic == "dsql.cdc");
    return std::vector<std::string>{"id"};
  });
  const change c = f.ok(record("c", "null", R"({"v":1,"id":7})", "100"));
  CHECK(c.key.columns == std::vector<std::string>{"id"});
  CHECK(c.key.values == std::vector<value>{value::number("7")});
  f.ok(record("u", "null", R"({"id":8})", "101"));
  CHECK(asked == 1);  // learned into the catalog
}

TEST_CASE("DSQL: an insert or update without known key columns says how to configure them") {
  fixture f;
  const error e = f.fails(seed_insert);
  CHECK(e.code == error_code::missing_key);
  CHECK(contains(e.message, "postgres.public.order_items"));
  // The way the loader takes it (a source name holding dots is one key of `tables:`; a
  // dotted path "tables.public.order_items.primary.key.fields" is refused): the unit test
  // "the DSQL missing-key hint loads as written" loads it.
  CHECK(contains(e.message, "(tables: {\"public.order_items\": {primary.key.fields: [...]}})"));
  CHECK(contains(e.message, "primary key"));
}

TEST_CASE("DSQL: records order by source.ts_ns, not the top-level processing ts_ns, then by txId") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  // Committed first but processed last, and the other way round.
  const change committed_first = f.ok(
      record("u", "null", R"({"id":1,"v":"a"})", "1705318200000000000", "1705318999000000000"));
  const change committed_last = f.ok(
      record("u", "null", R"({"id":1,"v":"b"})", "1705318300000000000", "1705318200000000001"));
  CHECK(committed_first.seq < committed_last.seq);
  CHECK(committed_first.source.source_ts == timestamp_ns{1705318200000000000});

  const change tx_a = f.ok(record("u", "null", R"({"id":1})", "5", "1", "aaa"));
  const change tx_b = f.ok(record("u", "null", R"({"id":1})", "5", "1", "aab"));
  CHECK(tx_a.seq < tx_b.seq);

  // Without source.ts_ns, source.ts_ms stands in; without either the record cannot be ordered.
  const change ms = f.ok(R"({"type":"full","op":"c","before":null,"after":{"id":1},
    "source":{"ts_ms":1705318200000,"txId":"t","schema":"public","table":"t","db":"postgres"}})");
  CHECK(ms.source.source_ts == timestamp_ns{1705318200000000000});
  CHECK(f.fails(R"({"type":"full","op":"c","before":null,"after":{"id":1},
    "source":{"txId":"t","schema":"public","table":"t","db":"postgres"},"ts_ns":5})")
            .code == error_code::bad_csn);
  CHECK(f.fails(record("u", "null", R"({"id":1})", "\"soon\"")).code == error_code::bad_csn);
}

TEST_CASE("DSQL: new columns after a schema change decode like any other") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  const change before_ddl = f.ok(record("u", "null", R"({"id":1,"v":"a"})", "100"));
  const change after_ddl = f.ok(record("u", "null", R"({"id":1,"v":"a","added":true})", "200"));
  CHECK(before_ddl.after.size() == 2);
  CHECK(*column(after_ddl, "added") == value::boolean(true));
}

TEST_CASE("DSQL: the seed's principal record and fragment decode to chunk pieces") {
  fixture f;
  f.catalog.configure_key("public.order_items", {"order_id", "item_id"});
  const chunk_piece principal = f.piece(seed_chunked);
  CHECK(principal.chunk_id == "chunk-id");
  CHECK(principal.is_principal());
  CHECK(principal.total_fragments == 3);
  CHECK(principal.crc32c == 2073618257u);
  CHECK(principal.payload == seed_chunked);  // decoded again once the chunk is complete
  CHECK(principal.origin.topic == "dsql.cdc");
  CHECK(principal.origin.offset == kafka_offset{5});

  const chunk_piece fragment = f.piece(seed_fragment, 6);
  CHECK(fragment.chunk_id == "chunk-id");
  CHECK(fragment.index == 0);
  CHECK(fragment.payload == "partial-JSON-text");
  CHECK(fragment.origin.offset == kafka_offset{6});
}

TEST_CASE("DSQL: a fragment's data is kept unescaped, as the image text it is a part of") {
  fixture f;
  const chunk_piece p = f.piece(R"({"type":"fragment","chunk_id":"k","index":2,)"
                                R"("data":"{\"name\":\"caf\u00e9 \\\"x\\\"\"}"})");
  CHECK(p.index == 2);
  CHECK(p.payload == "{\"name\":\"caf\xc3\xa9 \\\"x\\\"\"}");
}

TEST_CASE("DSQL: a reassembled image decodes to the change its principal record stands for") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  const std::string image = R"({"id": 7, "big": "xxxxxxxxxx", "n": 12345678901234567890})";
  const auto chunked = testing::dsql_chunk("c-7", image, 3, "500");
  const chunk_piece p = f.piece(chunked.principal);
  CHECK(p.total_fragments == 3);
  CHECK(p.crc32c == crc32c(image));

  raw_message msg;
  msg.topic = "dsql.cdc";
  msg.partition = partition_id{2};
  msg.offset = kafka_offset{41};
  msg.value = chunked.principal;
  auto c = f.decoder.decode_chunked(msg, image);
  REQUIRE(c.ok());
  CHECK(c->op == op_kind::upsert);
  CHECK(c->table->name.qualified() == "postgres.public.t");
  CHECK(*column(*c, "n") == value::number("12345678901234567890"));
  CHECK(*column(*c, "big") == value::string("xxxxxxxxxx"));
  CHECK(c->source.origin.offset == kafka_offset{41});
  CHECK(c->source.tx == "tx-500");
  // The same row sent whole orders, keys and reads the same.
  const change whole = f.ok(record("c", "null", image, "500", "1", "tx-500"));
  CHECK(c->seq == whole.seq);
  CHECK(c->key.canonical == whole.key.canonical);
  CHECK(c->after.size() == whole.after.size());

  // A chunked delete carries its key in the before image.
  const auto del = testing::dsql_chunk("c-8", R"({"id": 7})", 2, "600", "d");
  msg.value = del.principal;
  auto d = f.decoder.decode_chunked(msg, R"({"id": 7})");
  REQUIRE(d.ok());
  CHECK(d->op == op_kind::remove);
  CHECK(d->key.canonical == whole.key.canonical);
}

TEST_CASE("DSQL: a reassembled image that is not a JSON object is an error, not a change") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  raw_message msg;
  const std::string principal = testing::dsql_principal("k", 2, 1, "5");
  msg.value = principal;
  for (std::string_view bad :
       {R"({"id": 1)", R"([1,2])", R"("text")", R"({"id":1} {"id":2})", R"({"id":1,"id":2})", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(f.decoder.decode_chunked(msg, bad).ok());
  }
  // And its key is still required.
  auto no_key = f.decoder.decode_chunked(msg, R"({"other": 1})");
  REQUIRE_FALSE(no_key.ok());
  CHECK(no_key.err().code == error_code::missing_key);
  // Only a principal record can be completed.
  const std::string fragment = testing::dsql_fragment("k", 0, "{}");
  msg.value = fragment;
  CHECK_FALSE(f.decoder.decode_chunked(msg, R"({"id":1})").ok());
}

TEST_CASE("DSQL: hostile chunked and fragment records are errors naming what is wrong") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  const auto fragment_error = [&](std::string_view json, std::string_view says) {
    CAPTURE(json);
    const error e = f.fails(json);
    CHECK_MESSAGE(contains(e.message, says), e.message);
  };
  fragment_error(R"({"type":"fragment","index":0,"data":"x"})", "no chunk_id");
  fragment_error(R"({"type":"fragment","chunk_id":"","index":0,"data":"x"})", "non-empty string");
  fragment_error(R"({"type":"fragment","chunk_id":7,"index":0,"data":"x"})", "non-empty string");
  fragment_error(R"({"type":"fragment","chunk_id":"k","data":"x"})", "no index");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":-1,"data":"x"})", "index must be");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":1.5,"data":"x"})", "index must be");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":"0","data":"x"})", "index must be");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":65536,"data":"x"})", "index must be");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":99999999999999999999,"data":"x"})",
                 "index must be");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":0})", "no data");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":0,"data":7})", "must be a string");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":0,"data":{"a":1}})",
                 "must be a string");
  fragment_error(R"({"type":"fragment","chunk_id":"k","index":0,"data":"x\u0000"})", "");

  std::string principal = testing::dsql_principal("k", 3, 7, "5");
  const auto with = [&](std::string_view from, std::string_view to) {
    std::string s = principal;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  for (std::string_view total :
       {"0", "-3", "65537", "1e9", "3.5", "\"3\"", "null", "99999999999999999999999"}) {
    fragment_error(with("\"total_fragments\":3", "\"total_fragments\":" + std::string(total)),
                   "total_fragments must be");
  }
  for (std::string_view crc : {"7", "\"-7\"", "\"4294967296\"", "\"0x07\"", "\"\"", "\" 7\""}) {
    fragment_error(with("\"crc32c\":\"7\"", "\"crc32c\":" + std::string(crc)), "crc32c must be");
  }
  fragment_error(with("\"chunk_id\":\"k\",", ""), "needs chunk_id");
  fragment_error(with("\"chunk_id\":\"k\"", "\"chunk_id\":5"), "chunk_id must be a string");
  fragment_error(with("\"chunk_id\":\"k\"", "\"chunk_id\":\"\""), "no usable chunk_id");
  fragment_error(with(R"("chunked":{"after":)", R"("chunked":{"before":)"),
                 "chunked image is before");
  fragment_error(with(R"("chunked":{"after":{"chunk_id":"k","total_fragments":3,"crc32c":"7"}})",
                      R"("chunked":{"after":null})"),
                 "names no chunk");
  fragment_error(with(R"("chunked":{"after":{"chunk_id":"k","total_fragments":3,"crc32c":"7"}})",
                      R"("chunked":[1])"),
                 "chunked must be an object");
  fragment_error(with(R"("chunked":{"after":{"chunk_id":"k","total_fragments":3,"crc32c":"7"}})",
                      R"("chunked":{"before":{"chunk_id":"a","total_fragments":1,"crc32c":"7"},)"
                      R"("after":{"chunk_id":"k","total_fragments":3,"crc32c":"7"}})"),
                 "both images chunked");
  fragment_error(with("\"chunked\":{", "\"chunky\":{"), "without chunked");
  // The header is checked when the principal arrives, not once the fragments are in.
  fragment_error(with("\"op\":\"c\"", "\"op\":\"x\""), "unknown op");
  fragment_error(with("\"table\":\"t\"", "\"table\":\"\""), "names no table");
  fragment_error(with("\"ts_ns\":5", "\"ts_ns\":\"soon\""), "source.ts_ns");
}

TEST_CASE("DSQL: a Kafka tombstone decodes to nothing, without error") {
  fixture f;
  raw_message msg;
  msg.topic = "dsql.cdc";
  CHECK_FALSE(f.decoder.decode(msg, f.out).has_value());
  CHECK(f.out.empty());
}

TEST_CASE("DSQL: hostile records are errors naming what is wrong, never crashes") {
  fixture f;
  f.catalog.configure_key("public.t", {"id"});
  const std::string good = record("c", "null", R"({"id":1})", "100");
  for (size_t cut : {size_t{0}, size_t{1}, good.size() / 2, good.size() - 1}) {
    CAPTURE(cut);
    CHECK(f.fails(good.substr(0, cut)).code == error_code::invalid_json);
  }
  CHECK(f.fails("[]").code == error_code::wrong_type);
  CHECK(f.fails(R"({"op":"c","after":{"id":1},"source":{"table":"t","ts_ns":1}})").code ==
        error_code::missing_field);  // no type
  CHECK(f.fails(R"({"type":7,"op":"c"})").code == error_code::wrong_type);
  const error type = f.fails(R"({"type":"partial","op":"c"})");
  CHECK(type.code == error_code::unsupported);
  CHECK(contains(type.message, "partial"));
  CHECK(f.fails(record("x", "null", R"({"id":1})", "100")).code == error_code::unknown_op);
  CHECK(f.fails(record("u", "null", "null", "100")).code == error_code::missing_field);
  CHECK(f.fails(record("u", "null", "[1]", "100")).code == error_code::wrong_type);
  CHECK(f.fails(R"({"type":"full","op":"c","after":{"id":1}})").code ==
        error_code::missing_field);  // no source
  CHECK(f.fails(R"({"type":"full","op":"c","after":{"id":1},"source":{"ts_ns":1}})").code ==
        error_code::missing_field);  // no table
  CHECK(f.fails(record("c", "null", R"({"id":1,"v":"\u0000"})", "100")).code ==
        error_code::nul_in_text);
  CHECK(f.fails(record("c", "null", R"({"id":null})", "100")).code == error_code::missing_key);
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK(f.fails(record("c", "null", R"({"id":1,"v":)" + deep + "}", "100")).code ==
        error_code::too_deep);
  CHECK(f.fails(record("c", "null", R"({"id":1,"v":1e})", "100")).code == error_code::invalid_json);

  const change exact = f.ok(record(
      "c", "null",
      R"({"id":18446744073709551616,"big":1e400,"d38":12345678901234567890123456789012345678})",
      "100"));
  CHECK(*column(exact, "id") == value::number("18446744073709551616"));
  CHECK(*column(exact, "big") == value::number("1e400"));
  CHECK(*column(exact, "d38") == value::number("12345678901234567890123456789012345678"));
  CHECK(exact.key.values == std::vector<value>{value::number("18446744073709551616")});
}

TEST_CASE("DSQL: records are bounded in size and columns") {
  table_catalog catalog;
  catalog.configure_key("public.t", {"id"});
  dsql_options o;
  o.limits.max_message_bytes = 2048;
  o.limits.max_columns = 3;
  dsql_decoder d(catalog, o);
  decode_output out;
  raw_message msg;
  const std::string big = record("c", "null", R"({"id":")" + std::string(3000, 'x') + "\"}", "1");
  msg.value = big;
  auto err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::too_large);
  const std::string wide = record("c", "null", R"({"id":1,"a":1,"b":2,"c":3})", "1");
  msg.value = wide;
  err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::too_many_columns);
  CHECK(out.empty());
}

}  // namespace sluice
