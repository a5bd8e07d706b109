// GoldenGate's column types end to end (issue 13): OBJECT_METADATA with Oracle types, then
// DML, through `sluice replay` into an auto-created table whose columns get PostgreSQL's
// types for them, and whose values (binary columns' bytes among them) read back as sent.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "integration/support/kcat_lines.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

TEST_CASE("GoldenGate OBJECT_METADATA's Oracle types become the replica's column types") {
  const std::string schema = unique_name("gg_types");
  const std::string topic = unique_name("gg_types");
  const std::string connector = unique_name("gg_types");
  const std::string qual = "SRC.ORDERS";
  const std::string metadata =
      R"({"op_type":"OBJECT_METADATA","qual_table":")" + qual + R"j(","csn":"100","columns":{
       "ORDER_ID":{"type":"NUMBER(10)","null":false,"key":true},
       "AMOUNT":{"type":"NUMBER(12,2)","null":true,"key":false},
       "STATUS":{"type":"VARCHAR2(20)","null":true,"key":false},
       "NOTE":{"type":"CLOB","null":true,"key":false},
       "PLACED":{"type":"DATE","null":true,"key":false},
       "SHIPPED":{"type":"TIMESTAMP(6) WITH TIME ZONE","null":true,"key":false},
       "RATE":{"type":"BINARY_DOUBLE","null":true,"key":false},
       "TOKEN":{"type":"RAW(16)","null":true,"key":false}}})j";
  const auto dml = [&](int csn, const std::string& after) {
    return R"({"qual_table":")" + qual +
           R"(","op_type":"INSERT","op_ts":"2026-07-13T04:01:01.123456Z","csn":")" +
           std::to_string(csn) + R"(","xid":"x","pos":"p)" + std::to_string(csn) + R"(","after":)" +
           after + "}";
  };
  std::string lines = kcat_line(topic, 0, 0, std::nullopt, metadata) + "\n" +
                      kcat_line(topic, 0, 1, std::nullopt,
                                dml(101, R"({"ORDER_ID":1001,"AMOUNT":125.50,"STATUS":"NEW",
                                  "NOTE":"a long note","PLACED":"2026-07-13 04:01:01",
                                  "SHIPPED":"2026-07-13T06:01:01.5+02:00","RATE":0.25,
                                  "TOKEN":"AP9cAQ=="})")) +
                      "\n";
  const std::string path = write_run_file("gg_types.jsonl", lines);
  const std::string cfg = write_run_file(
      "gg_types.yaml",
      "name: " + connector + "\nkafka:\n  bootstrap.servers: 127.0.0.1:1\ntopics: [" + topic +
          "]\nformat: goldengate\npostgres:\n  dsn: \"" + postgres_dsn() +
          "\"\ntable.name.format: \"" + schema + ".${table}\"\nmetrics:\n  listen: \"\"\n");
  const command_result r = run_sluice({"replay", "-c", cfg, "--file", path});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("dead letters  0") != std::string::npos);

  std::map<std::string, std::string> types;
  for (const row& c : query("SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM "
                            "pg_attribute a WHERE a.attrelid = '\"" +
                            schema + "\".orders'::regclass AND a.attnum > 0")) {
    types[str(c[0])] = str(c[1]);
  }
  CHECK(types["order_id"] == "numeric(10,0)");  // NUMBER(10) stays exact
  CHECK(types["amount"] == "numeric(12,2)");
  CHECK(types["status"] == "character varying(20)");
  CHECK(types["note"] == "text");
  CHECK(types["placed"] == "timestamp(0) without time zone");  // Oracle's DATE has a time
  CHECK(types["shipped"] == "timestamp(6) with time zone");
  CHECK(types["rate"] == "double precision");
  CHECK(types["token"] == "bytea");
  const auto got = query(
      "SELECT order_id, amount, status, placed, shipped = TIMESTAMPTZ "
      "'2026-07-13 04:01:01.5+00', rate, encode(token, 'hex') FROM \"" +
      schema + "\".orders");
  REQUIRE(got.size() == 1);
  CHECK(str(got[0][0]) == "1001");
  CHECK(str(got[0][1]) == "125.50");
  CHECK(str(got[0][2]) == "NEW");
  CHECK(str(got[0][3]) == "2026-07-13 04:01:01");
  CHECK(str(got[0][4]) == "t");
  CHECK(str(got[0][5]) == "0.25");
  CHECK(str(got[0][6]) == "00ff5c01");  // the bytes, not the base64 text
}

}  // namespace sluice::testing
