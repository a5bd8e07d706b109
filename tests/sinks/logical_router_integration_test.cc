// The shards of a logical table (ByLogicalTableRouter) against a real server (CTest label
// "integration"): shards db1.<schema>.orders and db2.<schema>.orders land in one target, their
// rows kept apart by the shard column of their key; a shard's truncate removes its own rows
// only, and a late older upsert of the truncated shard is not brought back.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::pg_world;
using testing::seq;

constexpr const char* shard_column = "__dbz__physicalTableIdentifier";

struct shards {
  pg_world w;
  table_entry* db1 = w.catalog.intern(table_name{"db1", w.source_schema, "orders"});
  table_entry* db2 = w.catalog.intern(table_name{"db2", w.source_schema, "orders"});

  // As the transform leaves a change: the shard column in the key and in the row.
  change upsert(table_entry* t, int64_t id, int64_t n, const std::string& qty) {
    const value shard = value::string(t->name.database + ".public.orders");
    change c = w.upsert(t, id, n, {{"qty", value::string(qty)}, {shard_column, shard}});
    c.key.columns.push_back(shard_column);
    c.key.values.push_back(shard);
    REQUIRE_FALSE(canonicalize_key(c.key));
    return c;
  }
  change truncate(table_entry* t, int64_t n) {
    change c;
    c.op = op_kind::truncate;
    c.table = t;
    c.key.columns = {shard_column};
    c.key.values = {value::string(t->name.database + ".public.orders")};
    REQUIRE_FALSE(canonicalize_key(c.key));
    c.seq = seq(n);
    return c;
  }
  apply_options options(bool sharded = true) const {
    apply_options o = w.options();
    o.truncate_enabled = true;
    if (sharded) o.shard_columns = {shard_column};
    return o;
  }
  std::string rows(const std::string& where = "true") {
    pqxx::work tx(w.look);
    std::string out;
    for (const auto& r : tx.exec("SELECT id, \"__dbz__physicaltableidentifier\", qty FROM " +
                                 w.target("orders") + " WHERE " + where + " ORDER BY 2, 1"))
      out += r[0].as<std::string>() + "@" + r[1].as<std::string>() + "=" + r[2].as<std::string>() +
             " ";
    return out;
  }
};

TEST_CASE("two shards land in one table, rows with one id kept apart by the shard column") {
  shards s;
  test_sink lane1(s.w.dsn, s.options());
  apply_stats st =
      lane1.apply(s.w.merge({s.upsert(s.db1, 1, 10, "a"), s.upsert(s.db1, 2, 11, "b")}), {}, {});
  CHECK(st.upserted == 2);
  // Another lane, another shard, the same ids.
  test_sink lane2(s.w.dsn, s.options());
  st = lane2.apply(s.w.merge({s.upsert(s.db2, 1, 12, "c")}), {}, {});
  CHECK(st.upserted == 1);
  CHECK(st.rejected == 0);
  CHECK(s.rows() == "1@db1.public.orders=a 2@db1.public.orders=b 1@db2.public.orders=c ");
  // The route registry admitted the shards: one claim, by the shard column.
  CHECK(s.w.one("SELECT shard_column FROM \"" + s.w.state + "\".routes") ==
        "__dbz__physicaltableidentifier");
  CHECK(s.w.count("SELECT count(*) FROM \"" + s.w.state + "\".routes") == 1);
  // The table's key is (id, shard): an update of one shard's row leaves the other's.
  lane1.apply(s.w.merge({s.upsert(s.db1, 1, 20, "a2")}), {}, {});
  CHECK(s.rows() == "1@db1.public.orders=a2 2@db1.public.orders=b 1@db2.public.orders=c ");
  CHECK(s.w.count("SELECT count(*) FROM \"" + s.w.state +
                  "\".dead_letters WHERE kind = 'routing'") == 0);
}

TEST_CASE("a shard's truncate removes that shard's rows only; its late older upsert stays out") {
  for (const apply_bulk_path path : {apply_bulk_path::copy, apply_bulk_path::unnest}) {
    CAPTURE(static_cast<int>(path));
    shards s;
    apply_options o = s.options();
    o.bulk_path = path;
    test_sink lane(s.w.dsn, o);
    lane.apply(s.w.merge({s.upsert(s.db1, 1, 10, "a"), s.upsert(s.db1, 2, 60, "b"),
                          s.upsert(s.db2, 1, 10, "c"), s.upsert(s.db2, 2, 11, "d")}),
               {}, {});
    REQUIRE(s.w.count("SELECT count(*) FROM " + s.w.target("orders")) == 4);
    apply_stats st = lane.apply(s.w.merge({s.truncate(s.db1, 50)}), {}, {});
    CHECK(st.truncates_applied == 1);
    CHECK(st.deleted == 1);
    // db1's row below the truncate is gone, its newer row and all of db2's stay.
    CHECK(s.rows() == "2@db1.public.orders=b 1@db2.public.orders=c 2@db2.public.orders=d ");
    // The tombstone is the shard's, not the table's.
    CHECK(s.w.count("SELECT count(*) FROM \"" + s.w.state +
                    "\".tombstones WHERE key = ''::bytea") == 0);
    CHECK(s.w.one("SELECT key_json->>'__dbz__physicaltableidentifier' FROM \"" + s.w.state +
                  "\".tombstones") == "db1.public.orders");
    // A late upsert of db1 from before its truncate is not brought back; one of db2 as old
    // is written (db2 was not truncated); a newer one of db1 is.
    st = lane.apply(s.w.merge({s.upsert(s.db1, 3, 40, "late"), s.upsert(s.db2, 3, 40, "e"),
                               s.upsert(s.db1, 4, 70, "new")}),
                    {}, {});
    CHECK(s.rows() ==
          "2@db1.public.orders=b 4@db1.public.orders=new 1@db2.public.orders=c "
          "2@db2.public.orders=d 3@db2.public.orders=e ");
    CHECK(st.stale == 1);
  }
}

TEST_CASE("without the shard column the shards of one target are refused, as any fold") {
  shards s;
  test_sink lane(s.w.dsn, s.options(/*sharded=*/false));
  lane.apply(s.w.merge({s.upsert(s.db1, 1, 10, "a")}), {}, {});
  const apply_stats st = lane.apply(s.w.merge({s.upsert(s.db2, 1, 11, "c")}), {}, {});
  CHECK(st.rejected == 1);
  CHECK(s.rows() == "1@db1.public.orders=a ");
  CHECK(s.w.count("SELECT count(*) FROM \"" + s.w.state +
                  "\".dead_letters WHERE kind = 'routing'") == 1);
}

TEST_CASE("a shard's truncate without its scope is refused, and wipes no other shard") {
  shards s;
  test_sink lane(s.w.dsn, s.options());
  lane.apply(s.w.merge({s.upsert(s.db1, 1, 10, "a"), s.upsert(s.db2, 1, 10, "c")}), {}, {});
  change wide = s.truncate(s.db1, 50);
  wide.key = {};
  const apply_stats st = lane.apply(s.w.merge({s.upsert(s.db1, 2, 60, "b"), wide}), {}, {});
  CHECK(st.truncates_applied == 0);
  CHECK(s.rows() == "1@db1.public.orders=a 2@db1.public.orders=b 1@db2.public.orders=c ");
  CHECK(s.w.count("SELECT count(*) FROM \"" + s.w.state +
                  "\".dead_letters WHERE reason LIKE '%without its shard%'") == 1);
}

}  // namespace
}  // namespace sluice
