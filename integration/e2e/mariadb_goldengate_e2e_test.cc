// GoldenGate Data Streams JSON end to end into a real MariaDB (mariadb_e2e_test.cc says how).

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/json_text.h"
#include "integration/e2e/mariadb_e2e_support.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

kafka_record gg(const std::string& text) {
  return {std::nullopt, text, 0};
}

kafka_record gg_dml(const std::string& qual_table, const std::string& op, int64_t csn,
                    const std::string& images) {
  return gg(R"({"qual_table":")" + qual_table + R"(","op_type":")" + op +
            R"(","op_ts":"2026-07-13T04:01:01.123456Z","csn":")" + std::to_string(csn) +
            R"(","xid":"x)" + std::to_string(csn) + R"(","pos":"G-AAAA=)" + std::to_string(csn) +
            R"(",)" + images + "}");
}

kafka_record gg_metadata(const std::string& qual_table, int64_t csn, const std::string& more) {
  return gg(R"({"op_type":"OBJECT_METADATA","qual_table":")" + qual_table + R"(","csn":")" +
            std::to_string(csn) + R"j(","columns":{
      "ORDER_ID":{"type":"NUMBER(10)","null":false,"key":true},
      "STATUS":{"type":"VARCHAR2(20)","null":true,"key":false},
      "AMOUNT":{"type":"NUMBER(12,2)","null":true,"key":false},
      "NOTE":{"type":"CLOB","null":true,"key":false},
      "SHIPPED":{"type":"TIMESTAMP(6) WITH TIME ZONE","null":true,"key":false},
      "TOKEN":{"type":"RAW(16)","null":true,"key":false})j" +
            more + "}}");
}

}  // namespace

TEST_CASE(
    "mariadb e2e: GoldenGate partial updates out of order keep every column's newest value; a "
    "key change moves the row; DDL is recorded") {
  const std::string schema = upper(unique_name("mdb_gg"));
  const std::string database = lower(schema);
  const std::string qual = schema + ".ORDERS";
  const std::string t = "`" + database + "`.`orders`";
  const std::string topic = unique_name("mdb_gg");
  const std::string connector = unique_name("mdb_gg");
  create_topic(topic, 1);

  const std::string alter = "ALTER TABLE " + qual + " ADD PRIORITY NUMBER(3)";
  const std::vector<kafka_record> history = {
      gg_metadata(qual, 100, ""),
      // Row 1001: two partial updates (one column each) before the older full row and the
      // insert. Each column keeps the value of the newest image that carried it.
      gg_dml(qual, "UPDATE", 105, R"("after":{"ORDER_ID":1001,"STATUS":"PAID"})"),
      gg_dml(qual, "UPDATE", 107, R"("after":{"ORDER_ID":1001,"AMOUNT":12.50})"),
      gg_dml(qual, "UPDATE", 103,
             R"("after":{"ORDER_ID":1001,"STATUS":"CHECKED","AMOUNT":11.00,"NOTE":"older full",
               "SHIPPED":"2026-07-13T06:01:01.5+02:00","TOKEN":"AP9cAQ=="})"),
      gg_dml(qual, "INSERT", 101,
             R"("after":{"ORDER_ID":1001,"STATUS":"NEW","AMOUNT":10.00,"NOTE":"first",
               "SHIPPED":null,"TOKEN":null})"),
      // Row 1002 becomes 2002 (a key change); a late partial update of 1002, older than the
      // change, must not bring 1002 back.
      gg_dml(qual, "INSERT", 110,
             R"("after":{"ORDER_ID":1002,"STATUS":"NEW","AMOUNT":1.00,"NOTE":"to move",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "UPDATE", 120,
             R"("before":{"ORDER_ID":1002,"STATUS":"NEW","AMOUNT":1.00,"NOTE":"to move",
               "SHIPPED":null,"TOKEN":null},
               "after":{"ORDER_ID":2002,"STATUS":"MOVED","AMOUNT":1.00,"NOTE":"moved",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "UPDATE", 115, R"("after":{"ORDER_ID":1002,"STATUS":"LATE"})"),
      // DDL: recorded; the shape comes with the next OBJECT_METADATA.
      gg(R"({"op_type":"DDL","op_ts":"2026-07-13T04:04:30.000000Z","csn":"130","ddl":{"object":)"
         R"({"catalog":"","schema":")" +
         schema + R"(","object":"ORDERS"},"statement":")" + alter + R"("}})"),
      gg_metadata(qual, 131, R"j(,"PRIORITY":{"type":"NUMBER(3)","null":true,"key":false})j"),
      gg_dml(qual, "INSERT", 132,
             R"("after":{"ORDER_ID":1003,"STATUS":"NEW","AMOUNT":3.00,"NOTE":"three",
               "SHIPPED":null,"TOKEN":null,"PRIORITY":5})"),
      // Row 1004: deleted, then a late partial update older than the delete: stays gone.
      gg_dml(qual, "INSERT", 140,
             R"("after":{"ORDER_ID":1004,"STATUS":"NEW","AMOUNT":4.00,"NOTE":"four",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "DELETE", 150, R"("before":{"ORDER_ID":1004})"),
      gg_dml(qual, "UPDATE", 145, R"("after":{"ORDER_ID":1004,"NOTE":"zombie"})"),
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "goldengate", "", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  // OBJECT_METADATA's Oracle types; the column the DDL added typed by the next metadata.
  CHECK(lines(mariadb_column_types(database, "orders")) ==
        lines({{"order_id", "decimal(10,0)"},
               {"status", "varchar(20) COLLATE utf8mb4_nopad_bin"},
               {"amount", "decimal(12,2)"},
               {"note", "longtext COLLATE utf8mb4_nopad_bin"},
               {"shipped", "datetime(6)"},
               {"token", "longblob"},
               {"priority", "decimal(3,0)"}}));

  const auto rows = rows_of(
      "SELECT order_id, status, amount, note, shipped, hex(token), priority "
      "FROM " +
      t + " ORDER BY order_id");
  CHECK(rows.size() == 3);
  CHECK(rows.at("1001") == std::vector<std::string>{"PAID", "12.50", "older full",
                                                    "2026-07-13 04:01:01.500000", "00FF5C01",
                                                    "<null>"});
  CHECK_FALSE(rows.contains("1002"));
  CHECK(rows.at("2002") ==
        std::vector<std::string>{"MOVED", "1.00", "moved", "<null>", "<null>", "<null>"});
  CHECK(rows.at("1003") ==
        std::vector<std::string>{"NEW", "3.00", "three", "<null>", "<null>", "5"});
  CHECK_FALSE(rows.contains("1004"));

  // Per-column CSNs: 1001's status and amount came from the partial updates, its note from the
  // older full row; the row's CSN is its newest column's (the amount's, 107).
  const auto csns = mariadb_query(
      "SELECT JSON_VALUE(_sluice_col_csn, '$.status'), JSON_VALUE(_sluice_col_csn, '$.amount'), "
      "JSON_VALUE(_sluice_col_csn, '$.note'), lower(hex(_sluice_csn)) FROM " +
      t + " WHERE order_id = 1001");
  REQUIRE(csns.size() == 1);
  const std::string status = csns[0][0].value_or(""), amount = csns[0][1].value_or("");
  const std::string note = csns[0][2].value_or("");
  CHECK_FALSE(status.empty());
  CHECK(status < amount);
  CHECK(note < status);
  CHECK(amount == csns[0][3].value_or(""));

  CHECK(cell("SELECT count(*) FROM sluice.tombstones WHERE target_schema = '" + database +
             "' AND target_table = 'orders'") == "2");
  // The DDL record, once per delivery at most, with its statement as sent.
  const auto ddl = mariadb_query(
      "SELECT DISTINCT statement FROM sluice.ddl_history WHERE connector = '" + connector + "'");
  REQUIRE(ddl.size() == 1);
  CHECK(ddl[0][0].value_or("") == alter);
  CHECK(cell("SELECT key_columns FROM sluice.catalog WHERE connector = '" + connector +
             "' AND source_table = 'ORDERS'") == R"(["ORDER_ID"])");
}

// --- Debezium JSON (schemas enabled) ---

}  // namespace sluice::testing
