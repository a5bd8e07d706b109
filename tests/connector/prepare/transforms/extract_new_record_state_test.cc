#include "connector/prepare/transforms/extract_new_record_state.h"

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "schemas/debezium/debezium_decoder.h"

// Debezium's ExtractNewRecordState ("unwrap") options on decoded changes (issue 30): what a
// JDBC sink behind the transform would write, from real Debezium JSON envelopes and from
// changes built by hand.

using namespace sluice;

namespace {

// A PostgreSQL change event of shop.public.items as Debezium's JsonConverter writes it, with
// schemas (typed) or without (untyped).
constexpr const char* items_columns = R"json([
  {"type":"int32","optional":false,"field":"id"},
  {"type":"string","optional":true,"field":"name"},
  {"type":"int32","optional":true,"field":"qty"}])json";

std::string pg_payload(std::string_view op, std::string_view before, std::string_view after,
                       std::string_view transaction = R"({"id":"555:24023128","total_order":3,
                         "data_collection_order":2})") {
  return R"({"before":)" + std::string(before) + R"(,"after":)" + std::string(after) +
         R"(,"source":{"version":"2.7.3.Final","connector":"postgresql","name":"pg",
           "ts_ms":1705318200123,"snapshot":"false","db":"shop",
           "sequence":"[\"24023119\",\"24023128\"]","schema":"public","table":"items",
           "txId":555,"lsn":24023128,"xmin":null},"op":")" +
         std::string(op) + R"(","ts_ms":1705318200456,"transaction":)" + std::string(transaction) +
         "}";
}

std::string with_schema(std::string_view payload) {
  const std::string cols = items_columns;
  return R"({"schema":{"type":"struct","fields":[
    {"type":"struct","fields":)" +
         cols + R"(,"optional":true,"name":"pg.public.items.Value","field":"before"},
    {"type":"struct","fields":)" +
         cols + R"(,"optional":true,"name":"pg.public.items.Value","field":"after"},
    {"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},
      {"type":"int64","optional":true,"field":"lsn"}],"optional":false,
     "name":"io.debezium.connector.postgresql.Source","field":"source"},
    {"type":"string","optional":false,"field":"op"},
    {"type":"int64","optional":true,"field":"ts_ms"}],
   "optional":false,"name":"pg.public.items.Envelope","version":1},"payload":)" +
         std::string(payload) + "}";
}

constexpr const char* row7 = R"({"id":7,"name":"bolt","qty":3})";

// Decodes Debezium messages; keeps each message's bytes alive with the raw message that views
// them, as the consumer does for a batch.
struct decoded {
  table_catalog catalog;
  debezium_decoder decoder{catalog, {}};
  std::string bytes;
  std::string key = R"({"id":7})";
  raw_message raw;

  change decode(std::string message, int64_t offset = 17) {
    bytes = std::move(message);
    raw = raw_message{};
    raw.topic = "pg.public.items";
    raw.partition = partition_id{2};
    raw.offset = kafka_offset{offset};
    raw.timestamp = timestamp_ns{1'700'000'000'000'000'000};
    raw.key = key;
    raw.value = bytes;
    decode_output out;
    auto err = decoder.decode(raw, out);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    REQUIRE(out.changes.size() == 1);
    return std::move(out.changes.front());
  }
  record_context context() const { return {raw, "pg.public.items"}; }
};

unwrap_options mode(std::string m) {
  unwrap_options o;
  o.delete_tombstone_handling_mode = std::move(m);
  return o;
}

const value* column(const change& c, std::string_view name) {
  for (const column_value& cv : c.after) {
    if (cv.name == name) return &cv.v;
  }
  return nullptr;
}

std::string names(const change& c) {
  std::string out;
  for (const column_value& cv : c.after)
    out += (out.empty() ? "" : ",") + cv.name;
  return out;
}

using outcome = change_transform::outcome;

// The transform's answer: keep or drop, failing the test on an error.
outcome run(extract_new_record_state& t, change& c, const record_context& r) {
  auto result = t.apply(c, r);
  if (auto* why = std::get_if<std::string>(&result)) FAIL(*why);
  return std::get<outcome>(result);
}

std::string error_of(extract_new_record_state& t, change& c, const record_context& r) {
  auto result = t.apply(c, r);
  REQUIRE(std::holds_alternative<std::string>(result));
  return std::get<std::string>(result);
}

std::string refusal(const unwrap_options& o) {
  try {
    extract_new_record_state t("unwrap", o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A change of shop.public.items built by hand (any decoder's), untyped unless given types.
struct by_hand {
  table_catalog catalog;
  table_entry* table = catalog.intern(table_name{"shop", "public", "items"});
  raw_message raw;
  std::string bytes = "not json";

  by_hand() { raw.value = bytes; }
  change make(op_kind op, image after) {
    change c;
    c.op = op;
    c.table = table;
    c.key = make_row_key({"id"}, {value::number("7")}).value();
    c.after = std::move(after);
    c.source.source_ts = timestamp_ns{1'705'318'200'123'456'789};
    return c;
  }
  record_context context() const { return {raw, "items"}; }
};

shared_column_types items_types() {
  auto t = std::make_shared<column_types>();
  column_type i32;
  i32.id = type_id::int32;
  column_type text;
  text.id = type_id::string;
  t->columns = {{"id", i32, {}}, {"name", text, {}}, {"qty", i32, {}}};
  return t;
}

}  // namespace

TEST_CASE("unwrap without options keeps upserts and deletes as they are and drops truncates") {
  decoded d;
  extract_new_record_state t("unwrap", unwrap_options{});
  change up = d.decode(pg_payload("u", "null", row7));
  const change before = up;
  CHECK(run(t, up, d.context()) == outcome::keep);
  CHECK(up.after == before.after);
  CHECK(up.types == before.types);

  change del = d.decode(pg_payload("d", row7, "null"));
  CHECK(run(t, del, d.context()) == outcome::keep);
  CHECK(del.op == op_kind::remove);

  // Debezium's transform drops truncate events in every mode: the sink behind it sees none.
  change trunc = d.decode(pg_payload("t", "null", "null"));
  REQUIRE(trunc.op == op_kind::truncate);
  CHECK(run(t, trunc, d.context()) == outcome::drop);
}

TEST_CASE("unwrap delete.tombstone.handling.mode drop drops deletes, not upserts") {
  decoded d;
  extract_new_record_state t("unwrap", mode("drop"));
  change del = d.decode(pg_payload("d", row7, "null"));
  CHECK(run(t, del, d.context()) == outcome::drop);
  change up = d.decode(pg_payload("c", "null", row7));
  CHECK(run(t, up, d.context()) == outcome::keep);
  CHECK(names(up) == "id,name,qty");
}

TEST_CASE("unwrap tombstone, delete-to-tombstone and none keep the delete a delete") {
  for (unwrap_options o : {mode("tombstone"), mode("delete-to-tombstone"), mode(" Tombstone ")}) {
    decoded d;
    extract_new_record_state t("unwrap", o);
    change del = d.decode(pg_payload("d", row7, "null"));
    CHECK(run(t, del, d.context()) == outcome::keep);
    CHECK(del.op == op_kind::remove);
    CHECK(column(del, "__deleted") == nullptr);
  }
  unwrap_options legacy;
  legacy.delete_handling_mode = "none";
  decoded d;
  extract_new_record_state t("unwrap", legacy);
  change del = d.decode(pg_payload("d", row7, "null"));
  CHECK(run(t, del, d.context()) == outcome::keep);
  CHECK(del.op == op_kind::remove);
}

TEST_CASE("unwrap rewrite turns a delete into an upsert of its before image at the delete's CSN") {
  for (const char* m : {"rewrite", "rewrite-with-tombstone"}) {
    CAPTURE(m);
    decoded d;
    extract_new_record_state t("unwrap", mode(m));
    change del = d.decode(with_schema(pg_payload("d", row7, "null")));
    REQUIRE(del.op == op_kind::remove);
    const csn seq = del.seq;
    const row_key key = del.key;
    CHECK(run(t, del, d.context()) == outcome::keep);
    CHECK(del.op == op_kind::upsert);
    CHECK(del.seq == seq);
    CHECK(del.key.canonical == key.canonical);
    CHECK_FALSE(del.partial);
    CHECK(names(del) == "id,name,qty,__deleted");
    CHECK(column(del, "name")->text == "bolt");
    CHECK(*column(del, "__deleted") == value::string("true"));
    // Debezium inserts __deleted as Connect's InsertField does a static value: a string.
    REQUIRE(del.types);
    const column_types::column* deleted = del.types->find("__deleted");
    REQUIRE(deleted);
    CHECK(deleted->type.id == type_id::string);

    change up = d.decode(with_schema(pg_payload("u", row7, R"({"id":7,"name":"nut","qty":4})")));
    CHECK(run(t, up, d.context()) == outcome::keep);
    CHECK(names(up) == "id,name,qty,__deleted");
    CHECK(*column(up, "__deleted") == value::string("false"));
    // One schema, one derivation: the upsert and the rewritten delete share their types.
    CHECK(up.types == del.types);
  }
}

TEST_CASE("unwrap rewrite of a delete whose image lacks columns of its schema is partial") {
  by_hand h;
  extract_new_record_state t("unwrap", mode("rewrite"));
  change del = h.make(op_kind::remove, {{"id", value::number("7")}});
  del.types = items_types();
  CHECK(run(t, del, h.context()) == outcome::keep);
  CHECK(del.op == op_kind::upsert);
  CHECK(del.partial);  // name and qty keep their stored values, as a JDBC sink leaves them

  change full =
      h.make(op_kind::remove,
             {{"id", value::number("7")}, {"name", value::null()}, {"qty", value::null()}});
  full.types = items_types();
  CHECK(run(t, full, h.context()) == outcome::keep);
  CHECK_FALSE(full.partial);  // nulls are values: the image is whole

  change decoded_partial = h.make(op_kind::remove, {{"id", value::number("7")}});
  decoded_partial.partial = true;  // the decoder said so (unavailable values)
  CHECK(run(t, decoded_partial, h.context()) == outcome::keep);
  CHECK(decoded_partial.partial);
}

TEST_CASE("unwrap rewrite keeps a delete without its before image a delete") {
  decoded d;
  extract_new_record_state t("unwrap", mode("rewrite"));
  change del = d.decode(pg_payload("d", "null", "null"));
  REQUIRE(del.op == op_kind::remove);
  REQUIRE(del.after.empty());
  CHECK(run(t, del, d.context()) == outcome::keep);
  CHECK(del.op == op_kind::remove);
  CHECK(del.after.empty());
}

TEST_CASE("unwrap 2.x delete.handling.mode and drop.tombstones") {
  decoded d;
  auto outcome_of = [&](const unwrap_options& o) {
    extract_new_record_state t("unwrap", o);
    change del = d.decode(pg_payload("d", row7, "null"));
    return std::pair(run(t, del, d.context()), del.op);
  };
  unwrap_options o;
  o.drop_tombstones = true;  // a 2.x set-up: delete.handling.mode's default, drop
  CHECK(outcome_of(o).first == outcome::drop);
  // The tombstone passed on after each delete is what a JDBC sink deletes on.
  o.drop_tombstones = false;
  CHECK(outcome_of(o) == std::pair(outcome::keep, op_kind::remove));
  o.delete_handling_mode = "rewrite";
  CHECK(outcome_of(o) == std::pair(outcome::keep, op_kind::upsert));
  o.drop_tombstones.reset();
  o.delete_handling_mode = "DROP";
  CHECK(outcome_of(o).first == outcome::drop);
  // delete.tombstone.handling.mode, when set, wins as in Debezium 2.x.
  o.delete_tombstone_handling_mode = "tombstone";
  CHECK(outcome_of(o) == std::pair(outcome::keep, op_kind::remove));
}

TEST_CASE("unwrap add.fields name columns as Debezium does, with add.fields.prefix") {
  decoded d;
  unwrap_options o;
  o.add_fields = {"op", "source.ts_ms", "table",       " lsn ", "transaction.id",
                  "id", "ts_ms",        "db:origin_db"};
  extract_new_record_state t("unwrap", o);
  change up = d.decode(pg_payload("u", row7, row7));
  CHECK(run(t, up, d.context()) == outcome::keep);
  CHECK(names(up) ==
        "id,name,qty,__op,__source_ts_ms,__table,__lsn,__transaction_id,__id,__ts_ms,"
        "__origin_db");

  o.add_fields_prefix = "meta_";
  o.add_fields = {"op", "source.table", "op:kind"};
  extract_new_record_state prefixed("unwrap", o);
  change again = d.decode(pg_payload("u", row7, row7));
  CHECK(run(prefixed, again, d.context()) == outcome::keep);
  CHECK(names(again) == "id,name,qty,meta_op,meta_source_table,meta_kind");
}

TEST_CASE("unwrap add.fields values come from the change and the message's JSON envelope") {
  unwrap_options o;
  o.add_fields = {
      "op",  "ts_ms", "source.ts_ms", "source.ts_us",   "db",          "schema", "table",
      "lsn", "txId",  "xmin",         "transaction.id", "total_order", "version"};
  for (bool schemas : {false, true}) {
    CAPTURE(schemas);
    decoded d;
    extract_new_record_state t("unwrap", o);
    auto message = [&](std::string_view op, std::string_view before, std::string_view after) {
      const std::string p = pg_payload(op, before, after);
      return schemas ? with_schema(p) : p;
    };
    change up = d.decode(message("u", row7, row7));
    CHECK(run(t, up, d.context()) == outcome::keep);
    CHECK(*column(up, "__op") == value::string("u"));
    CHECK(*column(up, "__ts_ms") == value::number("1705318200456"));
    CHECK(*column(up, "__source_ts_ms") == value::number("1705318200123"));
    CHECK(*column(up, "__source_ts_us") == value::number("1705318200123000"));
    CHECK(*column(up, "__db") == value::string("shop"));
    CHECK(*column(up, "__schema") == value::string("public"));
    CHECK(*column(up, "__table") == value::string("items"));
    CHECK(*column(up, "__lsn") == value::number("24023128"));
    CHECK(*column(up, "__txId") == value::number("555"));
    CHECK(*column(up, "__xmin") == value::null());
    CHECK(*column(up, "__transaction_id") == value::string("555:24023128"));
    CHECK(*column(up, "__total_order") == value::number("3"));
    CHECK(*column(up, "__version") == value::string("2.7.3.Final"));

    change created = d.decode(message("c", "null", row7));
    CHECK(run(t, created, d.context()) == outcome::keep);
    CHECK(*column(created, "__op") == value::string("c"));
    change read = d.decode(message("r", "null", row7));
    CHECK(run(t, read, d.context()) == outcome::keep);
    CHECK(*column(read, "__op") == value::string("r"));
  }
}

TEST_CASE("unwrap add.fields on a rewritten delete say d, and a delete kept gets none") {
  unwrap_options o = mode("rewrite");
  o.add_fields = {"op", "lsn"};
  decoded d;
  extract_new_record_state t("unwrap", o);
  change del = d.decode(pg_payload("d", row7, "null"));
  CHECK(run(t, del, d.context()) == outcome::keep);
  CHECK(names(del) == "id,name,qty,__deleted,__op,__lsn");
  CHECK(*column(del, "__op") == value::string("d"));
  CHECK(*column(del, "__lsn") == value::number("24023128"));

  o.delete_tombstone_handling_mode = "tombstone";
  extract_new_record_state kept("unwrap", o);
  change other = d.decode(pg_payload("d", row7, "null"));
  CHECK(run(kept, other, d.context()) == outcome::keep);
  CHECK(other.op == op_kind::remove);
  CHECK(names(other) == "id,name,qty");
}

TEST_CASE("unwrap add.fields of a message without a transaction block are null") {
  unwrap_options o;
  o.add_fields = {"transaction.id", "gtid"};
  decoded d;
  extract_new_record_state t("unwrap", o);
  change up = d.decode(pg_payload("r", "null", row7, "null"));
  CHECK(run(t, up, d.context()) == outcome::keep);
  CHECK(*column(up, "__transaction_id") == value::null());
  CHECK(*column(up, "__gtid") == value::null());
}

TEST_CASE("unwrap add.fields of a non-JSON (Avro) message: what the change keeps, else an error") {
  unwrap_options o;
  o.add_fields = {"op", "table", "db", "source.ts_ms", "source.ts_ns"};
  by_hand h;
  h.bytes = std::string("\0\0\0\0\1avro", 9);  // a Confluent frame
  h.raw.value = h.bytes;
  extract_new_record_state t("unwrap", o);

  change del = h.make(op_kind::remove, {{"id", value::number("7")}});
  CHECK(run(t, del, h.context()) == outcome::keep);  // a delete kept: no fields
  change read = h.make(op_kind::upsert, {{"id", value::number("7")}});
  read.source.read = read_method::backfill;
  CHECK(run(t, read, h.context()) == outcome::keep);
  CHECK(*column(read, "__op") == value::string("r"));
  CHECK(*column(read, "__table") == value::string("items"));
  CHECK(*column(read, "__db") == value::string("shop"));
  CHECK(*column(read, "__source_ts_ms") == value::number("1705318200123"));
  CHECK(*column(read, "__source_ts_ns") == value::number("1705318200123456789"));

  // c or u: only the envelope says which.
  change up = h.make(op_kind::upsert, {{"id", value::number("7")}});
  const std::string why = error_of(t, up, h.context());
  CHECK(why.find("transforms.unwrap.add.fields: __op") == 0);
  CHECK(why.find("not JSON") != std::string::npos);
}

TEST_CASE("unwrap add.fields types the new columns once per schema, and leaves untyped alone") {
  unwrap_options o = mode("rewrite");
  o.add_fields = {"op", "source.ts_ms", "lsn", "txId"};
  decoded d;
  extract_new_record_state t("unwrap", o);
  change typed = d.decode(with_schema(pg_payload("u", row7, row7)));
  const shared_column_types original = typed.types;
  REQUIRE(original);
  CHECK(run(t, typed, d.context()) == outcome::keep);
  REQUIRE(typed.types);
  CHECK(typed.types != original);
  CHECK(original->find("__op") == nullptr);  // the decoder's schema is shared: never edited
  CHECK(typed.types->find("__deleted")->type.id == type_id::string);
  CHECK(typed.types->find("__op")->type.id == type_id::string);
  CHECK(typed.types->find("__source_ts_ms")->type.id == type_id::int64);
  CHECK(typed.types->find("__lsn")->type.id == type_id::int64);
  CHECK(typed.types->find("__txId")->type.id == type_id::unknown);  // connectors differ
  change second = d.decode(with_schema(pg_payload("c", "null", row7)));
  CHECK(run(t, second, d.context()) == outcome::keep);
  CHECK(second.types == typed.types);

  change untyped = d.decode(pg_payload("u", row7, row7));
  REQUIRE_FALSE(untyped.types);
  CHECK(run(t, untyped, d.context()) == outcome::keep);
  CHECK_FALSE(untyped.types);
  CHECK(column(untyped, "__op"));
}

TEST_CASE("unwrap refuses a column it would write that the row already has") {
  unwrap_options o = mode("rewrite");
  by_hand h;
  extract_new_record_state t("unwrap", o);
  change has_deleted =
      h.make(op_kind::upsert, {{"id", value::number("7")}, {"__deleted", value::string("x")}});
  CHECK(error_of(t, has_deleted, h.context()) ==
        "transforms.unwrap: shop.public.items already has a column __deleted, which "
        "ExtractNewRecordState would write");

  o.add_fields = {"table:id"};
  o.add_fields_prefix = "";
  extract_new_record_state on_key("unwrap", o);
  change up = h.make(op_kind::upsert, {{"id", value::number("7")}});
  const image before = up.after;
  CHECK(error_of(on_key, up, h.context()) ==
        "transforms.unwrap: id is a key column of shop.public.items: ExtractNewRecordState "
        "cannot write it");
  CHECK(up.after == before);

  // A column of the schema the image leaves out collides too.
  o.add_fields = {"table:qty"};
  extract_new_record_state on_schema("unwrap", o);
  change partial = h.make(op_kind::upsert, {{"id", value::number("7")}});
  partial.types = items_types();
  CHECK(error_of(on_schema, partial, h.context()).find("already has a column qty") !=
        std::string::npos);
}

TEST_CASE("unwrap refuses options it cannot honour, naming them") {
  CHECK(refusal(mode("soft")) ==
        "transforms.unwrap.delete.tombstone.handling.mode: `soft` is not one of drop, tombstone, "
        "rewrite, rewrite-with-tombstone, delete-to-tombstone");
  unwrap_options legacy;
  legacy.delete_handling_mode = "tombstone";  // a 3.x value under the 2.x option
  CHECK(refusal(legacy) ==
        "transforms.unwrap.delete.handling.mode: `tombstone` is not one of drop, rewrite, none");

  unwrap_options o;
  o.add_fields = {"source.nope"};
  const std::string unknown = refusal(o);
  CHECK(unknown.find("transforms.unwrap.add.fields: `source.nope` is not a field sluice knows; "
                     "known: op, ts_ms") == 0);
  CHECK(unknown.find("source.lsn") != std::string::npos);
  o.add_fields = {"after.id"};
  CHECK(refusal(o).find("only source.* and transaction.*") != std::string::npos);
  o.add_fields = {"op", "op"};
  CHECK(refusal(o) == "transforms.unwrap.add.fields: two entries write the column __op");
  o.add_fields = {"op:a:b"};
  CHECK(refusal(o).find("neither field nor field:new_name") != std::string::npos);
  o.add_fields = {""};
  CHECK(refusal(o) == "transforms.unwrap.add.fields: an entry names no field");
  o = mode("rewrite");
  o.add_fields = {"op:deleted"};
  CHECK(refusal(o).find("the column the rewrite mode writes") != std::string::npos);
  o.delete_tombstone_handling_mode = "tombstone";
  CHECK(refusal(o).empty());  // __deleted is free when nothing is rewritten

  o = {};
  o.add_headers = {"op"};
  CHECK(refusal(o).find("transforms.unwrap.add.headers: ") == 0);
  o = {};
  o.route_by_field = "region";
  CHECK(refusal(o).find("transforms.unwrap.route.by.field: ") == 0);
  o = {};
  o.drop_fields_header_name = "drop";
  CHECK(refusal(o).find("transforms.unwrap.drop.fields.header.name: ") == 0);
  o = {};
  o.add_headers_prefix = "x_";
  o.replace_null_with_default = false;
  o.drop_fields_from_key = true;
  o.drop_tombstones = false;
  CHECK(refusal(o).empty());
}

TEST_CASE("unwrap is deterministic: the same change gives the same result") {
  unwrap_options o = mode("rewrite");
  o.add_fields = {"op", "lsn", "source.ts_ms"};
  decoded d;
  extract_new_record_state t("unwrap", o);
  const change del = d.decode(with_schema(pg_payload("d", row7, "null")));
  change a = del;
  change b = del;
  CHECK(run(t, a, d.context()) == outcome::keep);
  CHECK(run(t, b, d.context()) == outcome::keep);
  CHECK(a.after == b.after);
  CHECK(a.op == b.op);
  CHECK(a.seq == b.seq);
  CHECK(a.types == b.types);
  CHECK(a.partial == b.partial);
}
