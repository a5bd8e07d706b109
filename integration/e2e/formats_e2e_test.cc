// Every CDC family end to end through the real broker and PostgreSQL (SPEC §3): messages
// produced with a real Kafka client, `sluice run` as a child process, assertions on the
// replica's rows. Datastream has its own file (datastream_e2e_test.cc).

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// id → the other columns, as text, ordered by id.
std::map<std::string, std::vector<std::string>> rows_of(const std::string& sql) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : query(sql)) {
    std::vector<std::string> rest;
    for (size_t i = 1; i < r.size(); ++i)
      rest.push_back(str(r[i]));
    out[str(r[0])] = rest;
  }
  return out;
}

// --- GoldenGate Data Streams ---

std::string gg_dml(const std::string& qual_table, const std::string& op, int64_t csn,
                   const std::string& images) {
  return R"({"qual_table":")" + qual_table + R"(","op_type":")" + op +
         R"(","op_ts":"2026-07-13T04:01:01.123456Z","csn":")" + std::to_string(csn) +
         R"(","xid":"x)" + std::to_string(csn) + R"(","pos":"G-AAAA=)" + std::to_string(csn) +
         R"(",)" + images + "}";
}

}  // namespace

TEST_CASE("GoldenGate: a restart after OBJECT_METADATA was committed still knows the table") {
  const std::string schema = upper(unique_name("gg"));
  const std::string qual = schema + ".ORDERS";
  std::string lower = schema;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string target = "\"" + lower + "\".orders";
  const std::string topic = unique_name("gg_orders");
  const std::string connector = unique_name("gg");
  create_topic(topic, 1);

  std::vector<kafka_record> first = {
      {std::nullopt,
       R"({"op_type":"OBJECT_METADATA","qual_table":")" + qual + R"(","csn":"100","columns":{
         "ORDER_ID":{"type":"number","null":false,"key":true},
         "STATUS":{"type":"string","null":false,"key":false},
         "TOTAL_AMOUNT":{"type":"number","null":true,"key":false}}})",
       -1},
      {std::nullopt,
       gg_dml(qual, "INSERT", 101,
              R"("after":{"ORDER_ID":1001,"STATUS":"NEW","TOTAL_AMOUNT":125.50})"),
       -1},
      {std::nullopt,
       gg_dml(qual, "INSERT", 102,
              R"("after":{"ORDER_ID":1002,"STATUS":"NEW","TOTAL_AMOUNT":99.99})"),
       -1},
      {std::nullopt,
       gg_dml(qual, "INSERT", 103, R"("after":{"ORDER_ID":1003,"STATUS":"NEW","TOTAL_AMOUNT":1})"),
       -1},
  };
  produce(topic, first);
  {
    sluice_process p(basic_config(connector, topic, "goldengate"));
    REQUIRE_MESSAGE(caught_up(connector, 4), p.log());
    CHECK(p.stop() == 0);
  }
  // The metadata lies behind the committed offsets now. What follows names no key: only
  // the persisted catalog tells the restarted instance that ORDER_ID is the key (without
  // it, the partial update would land in a keyless table as a new row).
  std::vector<kafka_record> second = {
      {std::nullopt, gg_dml(qual, "UPDATE", 201, R"("after":{"ORDER_ID":1001,"STATUS":"PAID"})"),
       -1},
      {std::nullopt, gg_dml(qual, "DELETE", 202, R"("before":{"ORDER_ID":1002})"), -1},
      {std::nullopt,
       R"({"op_type":"DDL","op_ts":"2026-07-13T04:04:30.000000Z","csn":"203","ddl":{"object":{"catalog":"","schema":")" +
           schema + R"(","object":"ORDERS"},"statement":"ALTER TABLE )" + qual +
           R"j( ADD CUSTOMER_TIER VARCHAR2(20)"}})j",
       -1},
      {std::nullopt,
       gg_dml(
           qual, "INSERT", 204,
           R"("after":{"ORDER_ID":1004,"STATUS":"NEW","TOTAL_AMOUNT":7,"CUSTOMER_TIER":"gold"})"),
       -1},
      // An older update arriving late changes nothing.
      {std::nullopt, gg_dml(qual, "UPDATE", 150, R"("after":{"ORDER_ID":1001,"STATUS":"LATE"})"),
       -1},
  };
  produce(topic, second);
  sluice_process p(basic_config(connector, topic, "goldengate"));
  REQUIRE_MESSAGE(caught_up(connector, 9), p.log());
  CHECK(p.stop() == 0);

  CHECK_MESSAGE(dead_letter_count(topic) == 0, dead_letter_reasons(topic));
  const auto rows = rows_of("SELECT order_id, status, total_amount, customer_tier FROM " + target +
                            " ORDER BY order_id");
  REQUIRE(rows.size() == 3);
  CHECK(rows.at("1001") == std::vector<std::string>{"PAID", "125.50", "<null>"});
  CHECK_FALSE(rows.contains("1002"));
  CHECK(rows.at("1003") == std::vector<std::string>{"NEW", "1", "<null>"});
  CHECK(rows.at("1004") == std::vector<std::string>{"NEW", "7", "gold"});
  // The key came from the metadata: the table's primary key is ORDER_ID.
  CHECK(str(query("SELECT string_agg(a.attname, ',') FROM pg_index i JOIN pg_attribute a ON "
                  "a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND "
                  "i.indrelid = '" +
                  target + "'::regclass")[0][0]) == "order_id");
  CHECK(str(query("SELECT array_to_string(key_columns, ',') FROM sluice.catalog WHERE connector "
                  "= '" +
                  connector + "' AND source_table = 'ORDERS'")[0][0]) == "ORDER_ID");
  CHECK(str(query("SELECT statement FROM sluice.ddl_history WHERE connector = '" + connector +
                  "'")[0][0]) == "ALTER TABLE " + qual + " ADD CUSTOMER_TIER VARCHAR2(20)");
}

// --- Debezium ---

namespace {

std::string debezium(const std::string& table, const std::string& op, const std::string& before,
                     const std::string& after, int64_t lsn) {
  return R"({"before":)" + before + R"(,"after":)" + after +
         R"(,"source":{"version":"2.5.0.Final","connector":"postgresql","name":"pg","ts_ms":1705318200123,"snapshot":"false","db":"shop","sequence":"[\")" +
         std::to_string(lsn) + R"(\",\")" + std::to_string(lsn) +
         R"(\"]","schema":"public","table":")" + table + R"(","txId":555,"lsn":)" +
         std::to_string(lsn) + R"(,"xmin":null},"op":")" + op + R"(","ts_ms":1705318200456})";
}

kafka_record dbz(int64_t id, std::optional<std::string> value) {
  return {R"({"id":)" + std::to_string(id) + "}", std::move(value), -1};
}

}  // namespace

TEST_CASE("Debezium: keys from the message key, c/u/d/r, tombstones skipped, late changes stale") {
  const std::string table = unique_name("dbz_items");
  const std::string topic = unique_name("dbz");
  const std::string connector = unique_name("dbz");
  create_topic(topic, 3);

  std::vector<kafka_record> records;
  for (int64_t id = 1; id <= 4; ++id) {
    records.push_back(dbz(id, debezium(table, id == 4 ? "r" : "c", "null",
                                       R"({"id":)" + std::to_string(id) + R"(,"name":"n)" +
                                           std::to_string(id) + R"(","qty":1})",
                                       100 + id)));
  }
  records.push_back(dbz(2, debezium(table, "u", R"({"id":2,"name":"n2","qty":1})",
                                    R"({"id":2,"name":"two","qty":5})", 200)));
  records.push_back(dbz(3, debezium(table, "d", R"({"id":3,"name":"n3","qty":1})", "null", 201)));
  records.push_back(dbz(3, std::nullopt));  // the tombstone that follows a delete
  // Older than the update and the delete: stale.
  records.push_back(
      dbz(2, debezium(table, "u", "null", R"({"id":2,"name":"stale","qty":0})", 150)));
  records.push_back(
      dbz(3, debezium(table, "u", "null", R"({"id":3,"name":"zombie","qty":0})", 160)));
  // The value placeholder of an unchanged TOAST column: absent, the stored value stays.
  records.push_back(
      dbz(4, debezium(table, "u", "null",
                      R"({"id":4,"name":"__debezium_unavailable_value","qty":9})", 300)));
  produce(topic, records);

  sluice_process p(basic_config(connector, topic, "debezium"));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);

  CHECK_MESSAGE(dead_letter_count(topic) == 0, dead_letter_reasons(topic));
  const auto rows = rows_of("SELECT id, name, qty FROM public.\"" + table + "\" ORDER BY id");
  REQUIRE(rows.size() == 3);
  CHECK(rows.at("1") == std::vector<std::string>{"n1", "1"});
  CHECK(rows.at("2") == std::vector<std::string>{"two", "5"});
  CHECK_FALSE(rows.contains("3"));
  CHECK(rows.at("4") == std::vector<std::string>{"n4", "9"});
}

// --- Aurora DSQL (full records) ---

namespace {

std::string dsql(const std::string& table, const std::string& op, const std::string& before,
                 const std::string& after, int64_t ts_ns) {
  return R"({"type":"full","op":")" + op + R"(","before":)" + before + R"(,"after":)" + after +
         R"(,"source":{"version":"1.0","ts_ms":1,"ts_ns":)" + std::to_string(ts_ns) +
         R"(,"txId":"t)" + std::to_string(ts_ns) + R"(","schema":"public","table":")" + table +
         R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":)" +
         std::to_string(9'000'000'000 - ts_ns) + "}";
}

}  // namespace

TEST_CASE("DSQL: records on random partitions in any order end in source.ts_ns order") {
  const std::string table = unique_name("dsql_accounts");
  const std::string topic = unique_name("dsql");
  const std::string connector = unique_name("dsql");
  create_topic(topic, 3);

  // Newest first, scattered over the partitions: what random partition keys produce. The
  // top-level ts_ns (processing time) runs the other way and must not decide.
  std::vector<kafka_record> records = {
      {std::nullopt, dsql(table, "d", R"({"id":3})", "null", 500), 0},
      {std::nullopt, dsql(table, "c", "null", R"({"id":1,"v":"third"})", 400), 1},
      {std::nullopt, dsql(table, "u", "null", R"({"id":2,"v":"second"})", 300), 2},
      {std::nullopt, dsql(table, "c", "null", R"({"id":1,"v":"second"})", 250), 0},
      {std::nullopt, dsql(table, "c", "null", R"({"id":3,"v":"first"})", 200), 1},
      {std::nullopt, dsql(table, "c", "null", R"({"id":2,"v":"first"})", 150), 2},
      {std::nullopt, dsql(table, "c", "null", R"({"id":1,"v":"first"})", 100), 0},
      {std::nullopt, dsql(table, "c", "null", R"({"id":1,"v":"third"})", 400), 2},  // redelivered
  };
  produce(topic, records);

  const std::string tables =
      "tables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\napply.lanes: 2\n";
  sluice_process p(basic_config(connector, topic, "dsql", tables));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);

  CHECK_MESSAGE(dead_letter_count(topic) == 0, dead_letter_reasons(topic));
  const auto rows = rows_of("SELECT id, v FROM public.\"" + table + "\" ORDER BY id");
  REQUIRE(rows.size() == 2);
  CHECK(rows.at("1") == std::vector<std::string>{"third"});
  CHECK(rows.at("2") == std::vector<std::string>{"second"});
  CHECK_FALSE(rows.contains("3"));
}

TEST_CASE("DSQL: without configuration, keys come from the target table's primary key") {
  const std::string table = unique_name("dsql_keyed");
  const std::string topic = unique_name("dsql_pk");
  const std::string connector = unique_name("dsql_pk");
  create_topic(topic, 2);
  execute("CREATE TABLE public.\"" + table +
          "\" (tenant text, id bigint, v text, PRIMARY KEY (tenant, id))");

  std::vector<kafka_record> records = {
      {std::nullopt, dsql(table, "c", "null", R"({"v":"b","id":1,"tenant":"x"})", 200), 0},
      {std::nullopt, dsql(table, "c", "null", R"({"tenant":"x","id":1,"v":"a"})", 100), 1},
      {std::nullopt, dsql(table, "c", "null", R"({"tenant":"y","id":1,"v":"c"})", 150), 1},
      {std::nullopt, dsql(table, "d", R"({"id":1,"tenant":"y"})", "null", 300), 0},
  };
  produce(topic, records);
  sluice_process p(basic_config(connector, topic, "dsql"));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);

  CHECK_MESSAGE(dead_letter_count(topic) == 0, dead_letter_reasons(topic));
  const auto rows =
      rows_of("SELECT tenant || '/' || id, v FROM public.\"" + table + "\" ORDER BY 1");
  REQUIRE(rows.size() == 1);
  CHECK(rows.at("x/1") == std::vector<std::string>{"b"});
}

}  // namespace sluice::testing
