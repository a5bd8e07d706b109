// Values reach the target column's real type (SPEC §3 "Avro and column types") on every write
// path: user-created tables with bytea, text, jsonb and array columns, read back without casts.
// Each case runs on both bulk paths (COPY staging, unnest() arrays); on the COPY path a new key
// goes straight into the table and an update through the staged MERGE, so all three see bytes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "sinks/postgres/sql/pg_array.h"
#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::key_of;
using testing::pg_world;
using testing::seq;

// NUL, 0xff, a backslash, a tab and a newline: what text and COPY's text format cannot carry
// as they are. bytea's text output: \x00ff5c090a41.
const std::string raw_bytes("\x00\xff\\\t\nA", 6);
const std::string raw_hex = R"(\x00ff5c090a41)";
const std::string raw_base64 = "AP9cCQpB";

// text[] elements with quotes, commas, braces, backslashes, blanks, a NULL and the text "NULL".
const std::string texts_json =
    R"(["a \"quoted\" word","comma, {brace}","back\\slash",null,"NULL",""])";
const std::string texts_out =
    R"({"a \"quoted\" word","comma, {brace}","back\\slash",NULL,"NULL",""})";

const char* path_name(apply_bulk_path p) {
  return p == apply_bulk_path::copy ? "copy" : "unnest";
}

void exec(pg_world& w, const std::string& sql) {
  pqxx::work tx(w.look);
  tx.exec(sql);
  tx.commit();
}

void create_typed_table(pg_world& w) {
  exec(w, "CREATE SCHEMA IF NOT EXISTS \"" + w.source_schema + "\"; CREATE TABLE " +
              w.target("typed") +
              " (id bigint PRIMARY KEY, b bytea, t text, vc varchar(40), j jsonb, ints integer[], "
              "texts text[], codes varchar(20)[], grid integer[], flags boolean[], blobs bytea[])");
}

change typed_row(table_entry* t, int64_t id, int64_t n, const std::string& bytes,
                 const std::string& ints) {
  change c;
  c.table = t;
  c.key = key_of("id", value::number(std::to_string(id)));
  c.after = {{"id", value::number(std::to_string(id))},
             {"b", value::bytes(bytes)},
             {"t", value::bytes(bytes)},
             {"vc", value::bytes(bytes)},
             {"j", value::bytes(bytes)},
             {"ints", value::json(ints)},
             {"texts", value::json(texts_json)},
             {"codes", value::json(R"(["x,y", "z\\"])")},
             {"grid", value::json("[[1,2],[3,null]]")},
             {"flags", value::json("[true,false,null]")},
             {"blobs", value::json(R"(["AP9cCQpB",null,""])")}};
  c.seq = seq(n);
  return c;
}

void check_typed_row(pg_world& w, int64_t id, const std::string& hex, const std::string& base64,
                     const std::string& ints) {
  const std::string where = " FROM " + w.target("typed") + " WHERE id = " + std::to_string(id);
  CHECK(w.one("SELECT b" + where) == hex);
  CHECK(w.count("SELECT length(b)" + where) == 6);
  CHECK(w.one("SELECT t" + where) == base64);
  CHECK(w.one("SELECT vc" + where) == base64);
  CHECK(w.one("SELECT j" + where) == "\"" + base64 + "\"");
  CHECK(w.one("SELECT jsonb_typeof(j)" + where) == "string");
  CHECK(w.one("SELECT ints" + where) == ints);
  CHECK(w.one("SELECT texts" + where) == texts_out);
  CHECK(w.count("SELECT cardinality(texts)" + where) == 6);
  CHECK(w.one("SELECT texts[3]" + where) == "back\\slash");
  CHECK(w.count("SELECT count(*)" + where + " AND texts[4] IS NULL AND texts[5] = 'NULL'") == 1);
  CHECK(w.one("SELECT codes" + where) == R"({"x,y","z\\"})");
  CHECK(w.one("SELECT grid" + where) == "{{1,2},{3,NULL}}");
  CHECK(w.count("SELECT array_ndims(grid)" + where) == 2);
  CHECK(w.one("SELECT flags" + where) == "{t,f,NULL}");
  CHECK(w.one("SELECT blobs" + where) == R"({"\\x00ff5c090a41",NULL,"\\x"})");
  CHECK(w.count("SELECT length(blobs[1])" + where) == 6);
}

TEST_CASE("bytes reach bytea as bytes, text and jsonb as base64, JSON arrays reach arrays") {
  for (const apply_bulk_path path : {apply_bulk_path::copy, apply_bulk_path::unnest}) {
    CAPTURE(path_name(path));
    pg_world w;
    create_typed_table(w);
    apply_options o = w.options();
    o.bulk_path = path;
    test_sink applier(w.dsn, o);
    table_entry* t = w.table("typed");

    // New keys (on the COPY path: straight into the table).
    apply_stats s = applier.apply(
        w.merge({typed_row(t, 1, 10, raw_bytes, "[1,2,null]"), typed_row(t, 2, 10, "", "[]")}), {},
        {});
    CHECK(s.upserted == 2);
    check_typed_row(w, 1, raw_hex, raw_base64, "{1,2,NULL}");
    CHECK(w.one("SELECT b FROM " + w.target("typed") + " WHERE id = 2") == "\\x");
    CHECK(w.one("SELECT ints FROM " + w.target("typed") + " WHERE id = 2") == "{}");

    // Updates (the guarded, staged statement), with other bytes.
    const std::string other("\\\\\x00\x7f\x80\xfe", 6);
    s = applier.apply(w.merge({typed_row(t, 1, 11, other, "[-7, 2147483647]")}), {}, {});
    CHECK(s.upserted == 1);
    check_typed_row(w, 1, R"(\x5c5c007f80fe)", "XFwAf4D+", "{-7,2147483647}");

    // A partial image (from now on the table keeps per-column CSNs): only b and ints change.
    change p;
    p.table = t;
    p.partial = true;
    p.key = key_of("id", value::number("1"));
    p.after = {
        {"id", value::number("1")}, {"b", value::bytes(raw_bytes)}, {"ints", value::json("[[5]]")}};
    p.seq = seq(12);
    s = applier.apply(w.merge({p}), {}, {});
    CHECK(s.upserted == 1);
    const std::string where = " FROM " + w.target("typed") + " WHERE id = 1";
    CHECK(w.one("SELECT b" + where) == raw_hex);
    CHECK(w.one("SELECT ints" + where) == "{{5}}");
    CHECK(w.one("SELECT t" + where) == "XFwAf4D+");
    CHECK(w.count("SELECT count(*)" + where + " AND _sluice_col_csn IS NOT NULL") == 1);
  }
}

TEST_CASE("a keyless table receives bytes and arrays in their column types") {
  for (const apply_bulk_path path : {apply_bulk_path::copy, apply_bulk_path::unnest}) {
    CAPTURE(path_name(path));
    pg_world w;
    exec(w, "CREATE SCHEMA IF NOT EXISTS \"" + w.source_schema + "\"; CREATE TABLE " +
                w.target("events") + " (b bytea, t text, j jsonb, texts text[])");
    apply_options o = w.options();
    o.bulk_path = path;
    test_sink applier(w.dsn, o);
    change c;
    c.table = w.table("events");
    c.after = {{"b", value::bytes(raw_bytes)},
               {"t", value::bytes(raw_bytes)},
               {"j", value::bytes(raw_bytes)},
               {"texts", value::json(texts_json)}};
    c.seq = seq(1);
    const apply_stats s = applier.apply(w.merge({c}), {}, {});
    CHECK(s.appended == 1);
    CHECK(w.one("SELECT b FROM " + w.target("events")) == raw_hex);
    CHECK(w.one("SELECT t FROM " + w.target("events")) == raw_base64);
    CHECK(w.one("SELECT j FROM " + w.target("events")) == "\"" + raw_base64 + "\"");
    CHECK(w.one("SELECT texts FROM " + w.target("events")) == texts_out);
  }
}

TEST_CASE("a bytea key: upsert, delete, and a late older upsert does not bring it back") {
  for (const apply_bulk_path path : {apply_bulk_path::copy, apply_bulk_path::unnest}) {
    CAPTURE(path_name(path));
    pg_world w;
    exec(w, "CREATE SCHEMA IF NOT EXISTS \"" + w.source_schema + "\"; CREATE TABLE " +
                w.target("blobs") + " (k bytea PRIMARY KEY, v text)");
    apply_options o = w.options();
    o.bulk_path = path;
    test_sink applier(w.dsn, o);
    table_entry* t = w.table("blobs");
    auto upsert = [&](int64_t n, const std::string& v) {
      change c;
      c.table = t;
      c.key = key_of("k", value::bytes(raw_bytes));
      c.after = {{"k", value::bytes(raw_bytes)}, {"v", value::string(v)}};
      c.seq = seq(n);
      return c;
    };
    auto remove = [&](int64_t n) {
      change c;
      c.op = op_kind::remove;
      c.table = t;
      c.key = key_of("k", value::bytes(raw_bytes));
      c.seq = seq(n);
      return c;
    };

    applier.apply(w.merge({upsert(10, "first")}), {}, {});
    CHECK(w.one("SELECT k FROM " + w.target("blobs")) == raw_hex);
    applier.apply(w.merge({upsert(11, "second")}), {}, {});
    CHECK(w.count("SELECT count(*) FROM " + w.target("blobs")) == 1);
    CHECK(w.one("SELECT v FROM " + w.target("blobs")) == "second");

    apply_stats s = applier.apply(w.merge({remove(20)}), {}, {});
    CHECK(s.deleted == 1);
    CHECK(s.tombstones == 1);
    CHECK(w.count("SELECT count(*) FROM " + w.target("blobs")) == 0);
    // The tombstone holds the key's canonical form, and its JSON the base64 text.
    CHECK(w.one("SELECT key FROM \"" + w.state + "\".tombstones") ==
          bytea_hex(key_of("k", value::bytes(raw_bytes)).canonical));
    CHECK(w.one("SELECT key_json->>'k' FROM \"" + w.state + "\".tombstones") == raw_base64);

    s = applier.apply(w.merge({upsert(15, "late")}), {}, {});
    CHECK(s.upserted == 0);
    CHECK(w.count("SELECT count(*) FROM " + w.target("blobs")) == 0);

    applier.apply(w.merge({upsert(21, "again")}), {}, {});
    CHECK(w.one("SELECT v FROM " + w.target("blobs") + " WHERE k = '" + raw_hex + "'") == "again");
  }
}

TEST_CASE("a \\u0000 escape PostgreSQL's jsonb refuses dead-letters its row, not the batch") {
  // JSON may spell NUL as \u0000 inside a string; jsonb cannot hold it (22P05, "unsupported
  // Unicode escape sequence"). The decoders refuse a NUL in text; an escape inside a JSON
  // value (a Debezium io.debezium.data.Json string, a nested object) reaches PostgreSQL, which
  // refuses that row alone: it goes to the dead letters with PostgreSQL's reason, the other
  // rows of the batch apply. A string value holding that text is a JSON string for jsonb, its
  // backslash escaped: stored as it is. Both bulk paths.
  for (const apply_bulk_path path : {apply_bulk_path::copy, apply_bulk_path::unnest}) {
    CAPTURE(path_name(path));
    pg_world w;
    create_typed_table(w);
    apply_options o = w.options();
    o.bulk_path = path;
    test_sink applier(w.dsn, o);
    table_entry* t = w.table("typed");
    auto row = [&](int64_t id, value j) {
      change c;
      c.table = t;
      c.key = key_of("id", value::number(std::to_string(id)));
      c.after = {{"id", value::number(std::to_string(id))}, {"j", std::move(j)}};
      c.seq = seq(10);
      return c;
    };
    const apply_stats s = applier.apply(w.merge({row(1, value::json(R"({"a":"x\u0000y"})")),
                                                 row(2, value::string(R"({"b":"\u0000"})")),
                                                 row(3, value::json(R"({"c":"\u00e9"})"))}),
                                        {}, {});
    CHECK(s.upserted == 2);
    CHECK(s.rejected == 1);
    CHECK(s.dead_lettered == 1);
    CHECK(w.one("SELECT j->>'c' FROM " + w.target("typed") + " WHERE id = 3") == "\u00e9");
    CHECK(w.one("SELECT j #>> '{}' FROM " + w.target("typed") + " WHERE id = 2") ==
          R"({"b":"\u0000"})");
    CHECK(w.count("SELECT count(*) FROM " + w.target("typed")) == 2);
    const std::string letters = "\"" + w.state + "\".dead_letters";
    CHECK(w.count("SELECT count(*) FROM " + letters +
                  " WHERE reason LIKE '%unsupported Unicode escape sequence%'") == 1);
  }
}

}  // namespace
}  // namespace sluice
