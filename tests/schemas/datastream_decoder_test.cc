#include "schemas/datastream/datastream_decoder.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {
namespace {

using parts = std::vector<csn_part>;

// The seed's Oracle example (seeds 000/002), with its JSON syntax errors corrected: the
// empty `log_file`, `database` and `tx_id` values filled in, missing commas added.
constexpr const char* oracle_insert = R"json({
  "stream_name": "projects/myProj/locations/myLoc/streams/Oracle-to-Source",
  "read_method": "oracle-cdc-logminer",
  "object": "SAMPLE.TBL",
  "uuid": "d7989206-380f-0e81-8056-240501101100",
  "read_timestamp": "2019-11-07T07:37:16.808Z",
  "source_timestamp": "2019-11-07T02:15:39",
  "source_metadata": {
    "log_file": "",
    "scn": 15869116216871,
    "row_id": "AAAPwRAALAAMzMBABD",
    "is_deleted": false,
    "database": "DB1",
    "schema": "ROOT",
    "table": "SAMPLE",
    "change_type": "INSERT",
    "tx_id": null,
    "rs_id": "0x0073c9.000a4e4c.01d0",
    "ssn": 67
  },
  "payload": {
    "THIS_IS_MY_PK": "1231535353",
    "FIELD1": "foo",
    "FIELD2": "TLV"
  }
})json";

constexpr const char* oracle_update = R"json({
  "stream_name": "projects/myProj/locations/myLoc/streams/Oracle-to-Source",
  "read_method": "oracle-cdc-logminer",
  "object": "SAMPLE.TBL",
  "uuid": "e6067366-1efc-0a10-a084-0d8701101101",
  "read_timestamp": "2019-11-07T07:37:18.808Z",
  "source_timestamp": "2019-11-07T02:17:39",
  "source_metadata": {
    "log_file": "",
    "scn": 15869150473224,
    "row_id": "AAAGYPAATAAPIC5AAB",
    "is_deleted": false,
    "database": "DB1",
    "schema": "ROOT",
    "table": "SAMPLE",
    "change_type": "UPDATE",
    "tx_id": "7.19.4521",
    "rs_id": "0x006cf4.00056b26.0010",
    "ssn": 0
  },
  "payload": {
    "THIS_IS_MY_PK": "1231535353",
    "FIELD1": null,
    "FIELD2": "TLV"
  }
})json";

constexpr const char* oracle_delete = R"json({
  "stream_name": "projects/myProj/locations/myLoc/streams/Oracle-to-Source",
  "read_method": "oracle-cdc-logminer",
  "object": "SAMPLE.TBL",
  "uuid": "c504f4bc-0ffc-4a1a-84df-6aba382fa651",
  "read_timestamp": "2019-11-07T07:37:20.808Z",
  "source_timestamp": "2019-11-07T02:19:39",
  "source_metadata": {
    "log_file": "",
    "scn": 158691504732555,
    "row_id": "AAAGYPAATAAPIC5AAC",
    "is_deleted": true,
    "database": "DB1",
    "schema": "ROOT",
    "table": "SAMPLE",
    "change_type": "DELETE",
    "tx_id": "7.19.4522",
    "rs_id": "0x006cf4.00056b26.0011",
    "ssn": 0
  },
  "payload": {
    "THIS_IS_MY_PK": "1231535353",
    "FIELD1": null,
    "FIELD2": "TLV"
  }
})json";

std::string mysql_event(std::string_view change_type, std::string_view log_file, int64_t position,
                        std::string_view id = "42",
                        std::string_view read_method = "mysql-cdc-binlog") {
  return R"({"read_method":")" + std::string(read_method) +
         R"(","source_timestamp":"2024-03-01T10:00:00.000Z","uuid":"u-1",
  "source_metadata":{"database":"shop","table":"orders","primary_keys":["id"],
    "change_type":")" +
         std::string(change_type) + R"(","is_deleted":false,
    "log_file":")" +
         std::string(log_file) + R"(","log_position":)" + std::to_string(position) +
         R"(},
  "payload":{"id":)" +
         std::string(id) + R"(,"total":29.990,"note":"x"}})";
}

std::string postgres_event(std::string_view lsn, std::string_view ts = "1709287200000") {
  return R"({"read_method":"postgres-cdc-wal","source_timestamp":)" + std::string(ts) + R"(,
  "source_metadata":{"schema":"public","table":"users","change_type":"UPDATE",
    "is_deleted":false,"tx_id":"5521","lsn":")" +
         std::string(lsn) + R"(",
    "primary_keys":["id"]},
  "payload":{"id":7,"name":"Zoë"}})";
}

std::string with_payload(std::string_view payload) {
  return R"({"read_method":"mysql-cdc-binlog","source_timestamp":1709287200000,
  "source_metadata":{"database":"shop","table":"t","primary_keys":["id"],
    "change_type":"INSERT","log_file":"mysql-bin.000001","log_position":4},
  "payload":)" +
         std::string(payload) + "}";
}

struct fixture {
  table_catalog catalog;
  datastream_options options;
  datastream_decoder decoder;
  decode_output out;

  explicit fixture(datastream_options o = {}) : options(o), decoder(catalog, std::move(o)) {}

  // Decodes one message and returns its single change, or the error.
  result<change> decode(std::string_view json, int64_t offset = 17) {
    raw_message msg;
    msg.topic = "cdc.orders";
    msg.partition = partition_id{3};
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

  error fails(std::string_view json) {
    auto c = decode(json);
    REQUIRE_FALSE(c.ok());
    return c.err();
  }

  table_entry* configure_oracle_sample(column_class pk_class = column_class::numeric) {
    table_entry* e = catalog.intern(table_name{"DB1", "ROOT", "SAMPLE"});
    e->key_columns = {"THIS_IS_MY_PK"};
    e->key_configured = true;
    e->columns = {column_info{"THIS_IS_MY_PK", "NUMBER", pk_class, false, true, {}}};
    return e;
  }
};

const value* column(const change& c, std::string_view name) {
  for (const column_value& cv : c.after) {
    if (cv.name == name) return &cv.v;
  }
  return nullptr;
}

timestamp_ns utc(int64_t seconds, int64_t nanos = 0) {
  return timestamp_ns{seconds * 1'000'000'000 + nanos};
}

}  // namespace

TEST_CASE("the seed's Oracle INSERT, UPDATE and DELETE decode to one row's history in order") {
  fixture f;
  table_entry* sample = f.configure_oracle_sample();
  const change insert = f.ok(oracle_insert);
  const change update = f.ok(oracle_update);
  const change remove = f.ok(oracle_delete);

  CHECK(insert.table == sample);
  CHECK(insert.table->name.qualified() == "DB1.ROOT.SAMPLE");
  CHECK(insert.op == op_kind::upsert);
  CHECK(update.op == op_kind::upsert);
  CHECK(remove.op == op_kind::remove);
  CHECK(insert.source.read == read_method::cdc);

  // The seed's rs_id goes backwards while scn rises: scn orders first.
  CHECK(insert.seq < update.seq);
  CHECK(update.seq < remove.seq);
  CHECK(insert.seq.parts() == parts{int64_t{1}, int64_t{15869116216871},
                                    std::string("0x0073c9.000a4e4c.01d0"), int64_t{67}});

  // The string key "1231535353" on a numeric column is the number 1231535353.
  REQUIRE(insert.key.columns == std::vector<std::string>{"THIS_IS_MY_PK"});
  CHECK(insert.key.values[0] == value::number("1231535353"));
  CHECK(insert.key == update.key);
  CHECK(update.key == remove.key);

  CHECK(*column(insert, "FIELD1") == value::string("foo"));
  CHECK(*column(update, "FIELD1") == value::null());
  CHECK(*column(update, "THIS_IS_MY_PK") == value::string("1231535353"));  // image as sent
  CHECK_FALSE(update.partial);
  CHECK(insert.source.tx.empty());
  CHECK(update.source.tx == "7.19.4521");
  CHECK(insert.source.source_ts == utc(1573092939));  // 2019-11-07T02:15:39, no zone: UTC
}

TEST_CASE("an Oracle key sent as a string equals the same key sent as a number") {
  fixture f;
  f.configure_oracle_sample(column_class::numeric);
  const change as_string = f.ok(oracle_update);
  std::string as_number_json = oracle_update;
  as_number_json.replace(as_number_json.find("\"1231535353\""), 12, "1231535353");
  const change as_number = f.ok(as_number_json);
  CHECK(as_string.key == as_number.key);
  CHECK(as_string.key.canonical == as_number.key.canonical);
}

TEST_CASE("an Oracle table without configured key columns is keyless") {
  fixture f;
  const change c = f.ok(oracle_insert);
  CHECK(c.key.empty());
  CHECK(c.op == op_kind::upsert);
}

TEST_CASE("a configured key column the payload lacks is a missing_key error naming both") {
  fixture f;
  table_entry* e = f.catalog.intern(table_name{"DB1", "ROOT", "SAMPLE"});
  e->key_columns = {"ID"};
  const error err = f.fails(oracle_insert);
  CHECK(err.code == error_code::missing_key);
  CHECK(err.message.find("\"ID\"") != std::string::npos);
  CHECK(err.message.find("DB1.ROOT.SAMPLE") != std::string::npos);
}

TEST_CASE("MySQL: binlog file sequence then position order events, across files") {
  fixture f;
  const change a = f.ok(mysql_event("UPDATE", "mysql-bin.000009", 999));
  const change b = f.ok(mysql_event("UPDATE", "mysql-bin.000010", 4));
  CHECK(a.seq < b.seq);
  CHECK(b.seq.parts() == parts{int64_t{1}, int64_t{10}, int64_t{4}});
  // Sequences past six digits still compare as numbers.
  CHECK(f.ok(mysql_event("UPDATE", "mysql-bin.999999", 5)).seq <
        f.ok(mysql_event("UPDATE", "mysql-bin.1000000", 4)).seq);

  CHECK(a.table->name.database == "shop");
  CHECK(a.table->name.schema.empty());
  CHECK(a.table->name.table == "orders");
  REQUIRE(a.key.columns == std::vector<std::string>{"id"});
  CHECK(a.key.values[0] == value::number("42"));
  CHECK(*column(a, "total") == value::number("29.990"));  // exact text, not 29.99
}

TEST_CASE("MySQL: a key change's UPDATE-DELETE deletes the old key, UPDATE-INSERT writes the new") {
  fixture f;
  const change old_half = f.ok(mysql_event("UPDATE-DELETE", "mysql-bin.000010", 1234, "41"));
  const change new_half = f.ok(mysql_event("UPDATE-INSERT", "mysql-bin.000010", 1234, "42"));
  CHECK(old_half.op == op_kind::remove);
  CHECK(new_half.op == op_kind::upsert);
  CHECK(old_half.key.values[0] == value::number("41"));
  CHECK(new_half.key.values[0] == value::number("42"));
  CHECK(old_half.seq == new_half.seq);  // one binlog position: the merge lets the upsert win
  CHECK_FALSE(old_half.old_key.has_value());
}

TEST_CASE("primary_keys first, then replication_index, then configured key columns") {
  fixture f;
  table_entry* configured = f.catalog.intern(table_name{"shop", "", "orders"});
  configured->key_columns = {"note"};
  configured->key_configured = true;
  std::string json = mysql_event("INSERT", "mysql-bin.000001", 4);
  CHECK(f.ok(json).key.columns == std::vector<std::string>{"id"});
  auto replaced = [&](std::string_view to) {
    std::string s = json;
    s.replace(s.find(R"("primary_keys":["id"])"), 21, to);
    return f.ok(s).key.columns;
  };
  CHECK(replaced(R"("primary_keys":"total")") == std::vector<std::string>{"total"});
  CHECK(replaced(R"("primary_keys":[],"replication_index":["total"])") ==
        std::vector<std::string>{"total"});
  CHECK(replaced(R"("primary_keys":[])") == std::vector<std::string>{"note"});
  CHECK(replaced(R"("primary_keys":null)") == std::vector<std::string>{"note"});
}

TEST_CASE("MySQL GTID streams order by binlog_file and binlog_position") {
  fixture f;
  auto event = [](std::string_view file, int64_t pos) {
    return R"({"read_method":"cdc","source_timestamp":"2024-03-01T10:00:00Z",
      "source_metadata":{"database":"shop","table":"orders","primary_keys":["id"],
      "change_type":"INSERT","binlog_file":")" +
           std::string(file) + R"(","binlog_position":")" + std::to_string(pos) + R"(",
      "gtid":"3E11FA47-71CA-11E1-9E33-C80AA9429562:23"},"payload":{"id":1}})";
  };
  const change a = f.ok(event("binlog.000002", 77));
  const change b = f.ok(event("binlog.000002", 120));
  CHECK(a.seq < b.seq);
  CHECK(a.seq.parts() == parts{int64_t{1}, int64_t{2}, int64_t{77}});  // "77" read as 77
  CHECK(a.source.tx == "3E11FA47-71CA-11E1-9E33-C80AA9429562:23");
}

TEST_CASE("backfill events order below every CDC event, and among themselves by timestamp") {
  fixture f;
  auto backfill = [](std::string_view ts) {
    return R"({"read_method":"mysql-backfill-fulldump","source_timestamp":")" + std::string(ts) +
           R"(","source_metadata":{"database":"shop","table":"orders",
      "primary_keys":["id"],"is_deleted":false,"log_file":"","log_position":0},
      "payload":{"id":42}})";
  };
  const change early = f.ok(backfill("2030-01-01T00:00:00Z"));
  const change late = f.ok(backfill("2030-01-01T00:00:01Z"));
  const change cdc = f.ok(mysql_event("INSERT", "mysql-bin.000001", 4));
  CHECK(early.source.read == read_method::backfill);
  CHECK(early.op == op_kind::upsert);  // no change_type: is_deleted decides
  CHECK(early.seq < late.seq);
  CHECK(late.seq < cdc.seq);
  CHECK(early.seq.parts() == parts{int64_t{0}, early.source.source_ts.value()});

  for (std::string_view method : {"backfill", "oracle-backfill", "postgresql-backfill",
                                  "mysql-backfill-incremental", "sqlserver-backfill"}) {
    CHECK(classify_read_method(method) == read_method::backfill);
  }
  for (std::string_view method : {"cdc", "mysql-cdc-binlog", "oracle-cdc-logminer",
                                  "postgres-cdc-wal", "oracle-supplementation"}) {
    CHECK(classify_read_method(method) == read_method::cdc);
  }
}

TEST_CASE("a backfill event without change_type is a delete when is_deleted is true") {
  fixture f;
  const change c = f.ok(R"({"read_method":"oracle-backfill",
    "source_metadata":{"schema":"ROOT","table":"SAMPLE","is_deleted":true},
    "payload":{"X":1}})");
  CHECK(c.op == op_kind::remove);
  CHECK(c.seq.parts() == parts{int64_t{0}});  // no timestamp, no positions
}

TEST_CASE("PostgreSQL: LSNs compare as 64-bit numbers, after the source timestamp") {
  fixture f;
  const change low = f.ok(postgres_event("0/FFFFFF0"));
  const change high = f.ok(postgres_event("0/10000008"));
  CHECK(low.seq < high.seq);  // as strings they would order the other way
  CHECK(high.seq.parts() ==
        parts{int64_t{1}, int64_t{1709287200000} * 1'000'000, int64_t{0x10000008}});
  CHECK(f.ok(postgres_event("16/B374D848")).seq.parts()[2] ==
        csn_part{int64_t{(int64_t{0x16} << 32) | 0xB374D848}});
  CHECK(low.table->name.schema == "public");
  CHECK(low.table->name.database.empty());
  CHECK(low.source.tx == "5521");
  CHECK(*column(low, "name") == value::string("Zoë"));
  CHECK(f.fails(postgres_event("zz/1")).code == error_code::bad_csn);
}

TEST_CASE("SQL Server: replication_index keys the row, LSNs are fixed-width hex text") {
  fixture f;
  auto event = [](std::string_view lsn, std::string_view type = "UPDATE") {
    return R"({"read_method":"sqlserver-cdc","source_timestamp":"2024-03-01T10:00:00.5Z",
      "source_metadata":{"database":7,"schema":["dbo"],"table":"Customers",
      "change_type":")" +
           std::string(type) + R"(","is_deleted":false,"lsn":")" + std::string(lsn) +
           R"(","tx_id":"0000:0001","physical_location":[1,2,3],
      "replication_index":["CustomerId","Region"]},
      "payload":{"CustomerId":"C-1","Region":"EU","Name":"Ada"}})";
  };
  const change a = f.ok(event("00000027:00000AC0:0002"));
  const change b = f.ok(event("00000027:00000ac0:0003", "DELETE"));
  CHECK(a.seq < b.seq);
  CHECK(a.seq == f.ok(event("00000027:00000ac0:0002")).seq);  // case does not matter
  CHECK(a.seq.parts()[2] == csn_part{std::string("00000027:00000ac0:0002")});
  CHECK(b.op == op_kind::remove);
  CHECK(a.key.columns == std::vector<std::string>{"CustomerId", "Region"});
  CHECK(a.table->name.database == "7");
  CHECK(a.table->name.schema == "dbo");
}

TEST_CASE("Spanner orders by commit_timestamp, record_sequence and mod_number") {
  fixture f;
  auto event = [](std::string_view commit, std::string_view seq, int mod) {
    return R"({"read_method":"spanner-cdc","source_timestamp":"2024-03-01T10:00:00Z",
      "source_metadata":{"database_id":"db","schema":"","table":"Singers",
      "change_type":"UPDATE","primary_keys":["SingerId"],
      "commit_timestamp":")" +
           std::string(commit) + R"(","record_sequence":")" + std::string(seq) +
           R"(","mod_number":)" + std::to_string(mod) + R"(},
      "payload":{"SingerId":1}})";
  };
  const change a = f.ok(event("2024-03-01T10:00:00.000000001Z", "00000009", 0));
  const change b = f.ok(event("2024-03-01T10:00:00.000000001Z", "00000010", 0));
  const change c = f.ok(event("2024-03-01T10:00:00.000000001Z", "00000010", 1));
  const change d = f.ok(event("2024-03-01T10:00:00.000000002Z", "00000001", 0));
  CHECK(a.seq < b.seq);
  CHECK(b.seq < c.seq);
  CHECK(c.seq < d.seq);
  CHECK(a.table->name.qualified() == "db.Singers");
}

TEST_CASE("Salesforce orders by source_timestamp, MongoDB by ts, others by sort_keys") {
  fixture f;
  const change sf = f.ok(R"({"read_method":"salesforce-cdc","source_timestamp":1709287200000,
    "source_metadata":{"object_name":"Account","domain":"acme.my.salesforce.com",
    "change_type":"UPDATE","is_deleted":false,"primary_keys":["Id"]},
    "payload":{"Id":"001xx"}})");
  CHECK(sf.table->name.table == "Account");
  CHECK(sf.seq.parts() == parts{int64_t{1}, int64_t{1709287200000} * 1'000'000});

  auto mongo = [](std::string_view ts) {
    return R"({"read_method":"mongodb-cdc","source_timestamp":1709287200000,
      "source_metadata":{"database":"app","collection":"users","change_type":"CREATE",
      "is_deleted":false,"primary_keys":["_id"],"ts":)" +
           std::string(ts) + R"(},"payload":{"_id":"65e1","doc":{"a":[1,2]}}})";
  };
  const change m1 = f.ok(mongo(R"({"$timestamp":{"t":1709287200,"i":3}})"));
  const change m2 = f.ok(mongo(R"({"i":1,"t":1709287201})"));
  CHECK(m1.op == op_kind::upsert);
  CHECK(m1.table->name.qualified() == "app.users");
  CHECK(m1.seq.parts() == parts{int64_t{1}, int64_t{1709287200}, int64_t{3}});
  CHECK(m1.seq < m2.seq);
  CHECK(*column(m1, "doc") == value::json(R"({"a":[1,2]})"));

  auto other = [](std::string_view keys) {
    return R"({"read_method":"cdc","sort_keys":)" + std::string(keys) + R"(,
      "source_metadata":{"database":"d","table":"t","primary_keys":["k"],
      "change_type":"INSERT"},"payload":{"k":1}})";
  };
  const change o1 = f.ok(other(R"([1709287200000, "9", "a"])"));
  const change o2 = f.ok(other(R"([1709287200000, "10", "a"])"));
  CHECK(o1.seq < o2.seq);  // "9" < "10": numbers sent as strings compare as numbers
  CHECK(o1.seq.parts() == parts{int64_t{1}, int64_t{1709287200000}, int64_t{9}, std::string("a")});
}

TEST_CASE("uuid and read_timestamp take no part in the CSN") {
  fixture f;
  std::string replay = oracle_update;
  replay.replace(replay.find("e6067366"), 8, "ffffffff");
  replay.replace(replay.find("07:37:18.808"), 12, "09:00:00.000");
  CHECK(f.ok(oracle_update).seq == f.ok(replay).seq);
}

TEST_CASE("a CDC event without the position fields its source needs cannot be ordered") {
  fixture f;
  const error e = f.fails(R"({"read_method":"mysql-cdc-binlog",
    "source_metadata":{"database":"shop","table":"orders","change_type":"INSERT"},
    "payload":{"id":1}})");
  CHECK(e.code == error_code::bad_csn);
  CHECK(e.message.find("log_file") != std::string::npos);
  CHECK(f.fails(R"({"read_method":"postgres-cdc-wal",
    "source_metadata":{"schema":"s","table":"t","change_type":"INSERT","lsn":"0/1"},
    "payload":{"id":1}})")
            .code == error_code::bad_csn);  // no source_timestamp
  CHECK(f.fails(mysql_event("INSERT", "mysql-bin.log", 4)).code == error_code::bad_csn);
}

TEST_CASE("huge and precise numbers survive byte for byte") {
  fixture f;
  const change c = f.ok(with_payload(R"({"id": 9223372036854775807,
    "a": 9007199254740993, "b": 12345678901234567890123456789012345678,
    "c": 0.12345678901234567890123456789012345678, "d": 1e400, "e": -0.0,
    "f": 1.50, "g": 2E-5 , "h": 18446744073709551616})"));
  CHECK(*column(c, "id") == value::number("9223372036854775807"));
  CHECK(*column(c, "a") == value::number("9007199254740993"));
  CHECK(*column(c, "b") == value::number("12345678901234567890123456789012345678"));
  CHECK(*column(c, "c") == value::number("0.12345678901234567890123456789012345678"));
  CHECK(*column(c, "d") == value::number("1e400"));
  CHECK(*column(c, "e") == value::number("-0.0"));
  CHECK(*column(c, "f") == value::number("1.50"));
  CHECK(*column(c, "g") == value::number("2E-5"));  // trailing whitespace trimmed
  CHECK(*column(c, "h") == value::number("18446744073709551616"));
  CHECK(c.key.values[0] == value::number("9223372036854775807"));
}

TEST_CASE("objects and arrays in the payload are kept as their raw JSON text") {
  fixture f;
  const change c = f.ok(with_payload(R"({"id":1, "doc": {"x": [1, 2.50, "\u00e9"], "y": null} ,
    "list": [ ], "flag": true})"));
  CHECK(*column(c, "doc") == value::json(R"({"x": [1, 2.50, "\u00e9"], "y": null})"));
  CHECK(*column(c, "list") == value::json("[ ]"));
  CHECK(*column(c, "flag") == value::boolean(true));
}

TEST_CASE("escapes and unicode in names and values are resolved") {
  fixture f;
  const change c = f.ok(R"({"read_method":"mysql-cdc-binlog","source_timestamp":0,
    "source_metadata":{"database":"caf\u00e9","table":"\u05d8\u05d1\u05dc\u05d4",
    "primary_keys":["na\u00efve \"id\""],"change_type":"INSERT",
    "log_file":"mysql-bin.000001","log_position":4},
    "payload":{"na\u00efve \"id\"":"k\u00e9y","t":"line\nnext\ttab \\ \/ \ud83d\ude00 日本"}})");
  CHECK(c.table->name.database == "café");
  CHECK(c.table->name.table == "טבלה");
  REQUIRE(c.key.columns == std::vector<std::string>{"naïve \"id\""});
  CHECK(c.key.values[0] == value::string("kéy"));
  CHECK(*column(c, "t") == value::string("line\nnext\ttab \\ / 😀 日本"));
}

TEST_CASE("text containing \\u0000 is refused: PostgreSQL cannot store it") {
  fixture f;
  error e = f.fails(with_payload(R"({"id":1,"bad":"a\u0000b"})"));
  CHECK(e.code == error_code::nul_in_text);
  CHECK(e.message.find("\"bad\"") != std::string::npos);
  CHECK(f.fails(with_payload(R"({"id":1,"doc":{"k":["\u0000"]}})")).code ==
        error_code::nul_in_text);
  CHECK(f.fails(with_payload(R"({"id":1,"doc":{"\u0000":1}})")).code == error_code::nul_in_text);
  CHECK(f.fails(with_payload(R"({"id":1,"a\u0000":1})")).code == error_code::nul_in_text);
}

TEST_CASE("invalid JSON is an error that says where, never a crash") {
  fixture f;
  const std::string whole = mysql_event("INSERT", "mysql-bin.000001", 4);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{40}, whole.size() / 2, whole.size() - 1}) {
    CAPTURE(cut);
    CHECK(f.fails(whole.substr(0, cut)).code == error_code::invalid_json);
  }
  const error e = f.fails(with_payload(R"({"id":1,"x":[1 2]})"));
  CHECK(e.code == error_code::invalid_json);
  CHECK(e.message.find("at byte") != std::string::npos);
  // Skipped parts are validated too: On-Demand alone would not look at them.
  for (std::string_view bad :
       {R"({"id":1,"doc":{"a":[1,tru]}})", R"({"id":1,"n":01})", R"({"id":1,"n":1.})",
        R"({"id":1,"n":-})", R"({"id":1,"n":nul})", R"({"id":1,"s":"\x"})",
        R"({"id":1,"doc":{"a":1,}})", R"({"id":1,"n":1e})"}) {
    CAPTURE(bad);
    CHECK(f.fails(with_payload(bad)).code == error_code::invalid_json);
  }
  CHECK(f.fails(R"({"uuid": [1,, 2], "payload": {}, "source_metadata": {}})").code ==
        error_code::invalid_json);
  CHECK(f.fails(whole + " {}").code == error_code::invalid_json);
  CHECK(f.fails("\xff\xfe").code == error_code::invalid_json);
  CHECK(f.fails(with_payload(R"({"id":1,"id":2})")).code == error_code::invalid_json);
}

TEST_CASE("a name given twice in the event, source_metadata or payload is refused, naming it") {
  fixture f;
  const std::string e = mysql_event("INSERT", "mysql-bin.000001", 4);
  auto inserted = [&](std::string_view after, std::string_view what) {
    std::string s = e;
    s.insert(s.find(after) + after.size(), what);
    return s;
  };
  struct expected {
    std::string json;
    std::string message;
  };
  const std::vector<expected> cases = {
      // A member the decoder reads, then one it only validates, in each object.
      {inserted(R"("uuid":"u-1",)", R"("read_method":"x",)"), R"(event names "read_method" twice)"},
      {inserted(R"("uuid":"u-1",)", R"("uuid":"u-2",)"), R"(event names "uuid" twice)"},
      {inserted(R"("table":"orders",)", R"("table":"other",)"),
       R"(source_metadata names "table" twice)"},
      {inserted(R"("table":"orders",)", R"("row_id":1,"row_id":2,)"),
       R"(source_metadata names "row_id" twice)"},
      {inserted(R"("note":"x")", R"(,"note":"y")"), R"(payload names "note" twice)"},
      // Two repeated names: the one whose second occurrence comes first is named.
      {inserted(R"("table":"orders",)", R"("row_id":1,"database":"d","row_id":2,)"),
       R"(source_metadata names "database" twice)"},
      {inserted(R"("table":"orders",)", R"("row_id":1,"table":"t","row_id":2,)"),
       R"(source_metadata names "table" twice)"},
  };
  for (const expected& c : cases) {
    CAPTURE(c.json);
    const error err = f.fails(c.json);
    CHECK(err.code == error_code::invalid_json);
    CHECK(err.message == c.message);
  }
  // Names the decoder reads are recognised exactly, others are not.
  for (size_t i = 0; i < static_cast<size_t>(datastream_member::count); ++i) {
    const auto m = static_cast<datastream_member>(i);
    CHECK(datastream_member_named(name_of(m)) == m);
  }
  for (std::string_view other : {"", "t", "uuid", "tables", "Table", "ts_ms", "clustertime"}) {
    CHECK_FALSE(datastream_member_named(other));
  }
}

TEST_CASE("a payload repeating a column is refused after payloads naming the same columns") {
  // The reader skips the duplicate check for a payload naming exactly the columns of the
  // last one it found unique: a payload that only begins like it must still be checked.
  fixture f;
  f.ok(with_payload(R"({"id":1,"a":2,"b":3})"));
  f.ok(with_payload(R"({"id":2,"a":2,"b":3})"));
  for (std::string_view repeated :
       {R"({"id":1,"a":2,"b":3,"a":4})", R"({"id":1,"a":2,"a":3})", R"({"id":1,"id":2,"b":3})"}) {
    CAPTURE(repeated);
    const error err = f.fails(with_payload(repeated));
    CHECK(err.code == error_code::invalid_json);
    CHECK(err.message.find("twice") != std::string::npos);
    f.ok(with_payload(R"({"id":3,"a":2,"b":3})"));
  }
}

TEST_CASE("wrong types are errors naming the field") {
  fixture f;
  CHECK(f.fails("[1,2]").code == error_code::wrong_type);
  CHECK(f.fails(with_payload("[1]")).code == error_code::wrong_type);
  CHECK(f.fails(with_payload("null")).code == error_code::wrong_type);
  CHECK(f.fails(R"({"source_metadata":"x","payload":{}})").code == error_code::wrong_type);
  std::string e = mysql_event("INSERT", "mysql-bin.000001", 4);
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string s = e;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK(f.fails(replaced(R"("change_type":"INSERT")", R"("change_type":1)")).code ==
        error_code::wrong_type);
  CHECK(f.fails(replaced(R"("is_deleted":false)", R"("is_deleted":"no")")).code ==
        error_code::wrong_type);
  CHECK(f.ok(replaced(R"("change_type":"INSERT")", R"("change_type":null)")).op ==
        op_kind::upsert);  // null change_type: is_deleted (false) decides
  CHECK(f.fails(replaced(R"("primary_keys":["id"])", R"("primary_keys":[1])")).code ==
        error_code::wrong_type);
  CHECK(f.fails(replaced(R"("table":"orders")", R"("table":{"n":1})")).code ==
        error_code::wrong_type);
  const error ts = f.fails(replaced(R"("2024-03-01T10:00:00.000Z")", R"("yesterday")"));
  CHECK(ts.code == error_code::wrong_type);
  CHECK(ts.message.find("source_timestamp") != std::string::npos);
  CHECK(f.fails(replaced(R"("log_position":4)", R"("log_position":"four")")).code ==
        error_code::bad_csn);
}

TEST_CASE("missing source_metadata, payload or table are missing_field errors") {
  fixture f;
  CHECK(f.fails(R"({"payload":{"id":1}})").code == error_code::missing_field);
  CHECK(f.fails(R"({"source_metadata":{"table":"t"}})").code == error_code::missing_field);
  const error e = f.fails(R"({"source_metadata":{"database":"d"},"payload":{}})");
  CHECK(e.code == error_code::missing_field);
  CHECK(e.message.find("table") != std::string::npos);
  CHECK(f.fails(R"({"source_metadata":{"table":""},"payload":{}})").code ==
        error_code::missing_field);
}

TEST_CASE("a null key value is refused") {
  fixture f;
  CHECK(f.fails(with_payload(R"({"id":null})")).code == error_code::missing_key);
  CHECK(f.fails(with_payload(R"({"other":1})")).code == error_code::missing_key);
}

TEST_CASE("an unknown change_type is an unknown_op error") {
  fixture f;
  const error e = f.fails(mysql_event("MERGE", "mysql-bin.000001", 4));
  CHECK(e.code == error_code::unknown_op);
  CHECK(e.message.find("MERGE") != std::string::npos);
  CHECK(f.ok(mysql_event("insert", "mysql-bin.000001", 4)).op == op_kind::upsert);
}

TEST_CASE("size, depth and column count are bounded") {
  datastream_options o;
  o.limits.max_message_bytes = 400;
  o.limits.max_depth = 4;
  o.limits.max_columns = 3;
  fixture f(o);
  CHECK(f.fails(std::string(401, ' ')).code == error_code::too_large);
  CHECK(f.ok(with_payload(R"({"id":1,"d":[[[[1]]]]})")).after.size() == 2);
  const error deep = f.fails(with_payload(R"({"id":1,"d":[[[[[1]]]]]})"));
  CHECK(deep.code == error_code::too_deep);
  CHECK(deep.message.find("\"d\"") != std::string::npos);
  const error wide = f.fails(with_payload(R"({"id":1,"a":1,"b":2,"c":3})"));
  CHECK(wide.code == error_code::too_many_columns);

  fixture defaults;
  const std::string very_deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(defaults.fails(with_payload(R"({"id":1,"d":)" + very_deep + "}")).code ==
        error_code::too_deep);
  CHECK(defaults.fails(R"({"uuid":)" + very_deep + "}").code == error_code::too_deep);
}

TEST_CASE("a Kafka tombstone decodes to nothing, without error") {
  table_catalog catalog;
  datastream_decoder decoder(catalog, {});
  raw_message msg;
  msg.topic = "t";
  decode_output out;
  CHECK_FALSE(decoder.decode(msg, out).has_value());
  CHECK(out.empty());
  msg.value = "";  // an empty value is not a tombstone
  CHECK(decoder.decode(msg, out)->code == error_code::invalid_json);
}

TEST_CASE("source timestamps: ISO with or without zone, epoch millis as number or string") {
  auto decoded_ts = [](std::string_view ts, std::string_view zone = "UTC") {
    datastream_options o;
    o.source_timezone = std::string(zone);
    fixture f(o);
    std::string json = mysql_event("INSERT", "mysql-bin.000001", 4);
    json.replace(json.find(R"("2024-03-01T10:00:00.000Z")"), 26, ts);
    return f.ok(json).source.source_ts;
  };
  const timestamp_ns expected = utc(1709287200, 123'000'000);  // 2024-03-01T10:00:00.123Z
  CHECK(decoded_ts(R"("2024-03-01T10:00:00.123Z")") == expected);
  CHECK(decoded_ts(R"("2024-03-01T12:00:00.123+02:00")") == expected);
  CHECK(decoded_ts(R"("2024-03-01T10:00:00.123")") == expected);
  CHECK(decoded_ts(R"("2024-03-01T12:00:00.123")", "+02:00") == expected);
  CHECK(decoded_ts(R"("2024-03-01T10:00:00.123Z")", "+02:00") == expected);       // zone wins
  CHECK(decoded_ts(R"("2024-03-01T11:00:00.123")", "Europe/Paris") == expected);  // winter
  CHECK(decoded_ts(R"("2024-07-01T12:00:00")", "Europe/Paris") == utc(1719828000, 0));
  CHECK(decoded_ts("1709287200123") == expected);
  CHECK(decoded_ts(R"("1709287200123")") == expected);
}

TEST_CASE("the change carries its Kafka origin") {
  fixture f;
  const change c = f.ok(mysql_event("INSERT", "mysql-bin.000001", 4));
  CHECK(c.source.origin.topic == "cdc.orders");
  CHECK(c.source.origin.partition == partition_id{3});
  CHECK(c.source.origin.offset == kafka_offset{17});
  CHECK(c.source.origin.timestamp == timestamp_ns{1'700'000'000'000'000'000});
}

TEST_CASE("an unknown or malformed source timezone is refused at construction") {
  table_catalog catalog;
  datastream_options o;
  o.source_timezone = "Europe/Pariss";
  REQUIRE(datastream_decoder::check(o).has_value());
  CHECK(datastream_decoder::check(o)->message.find("Europe/Pariss") != std::string::npos);
  CHECK_THROWS_AS(datastream_decoder(catalog, o), std::invalid_argument);
  o.source_timezone = "Europe/Paris";
  CHECK_FALSE(datastream_decoder::check(o).has_value());
  o.source_timezone = "+25:00";
  CHECK(datastream_decoder::check(o).has_value());
  o.source_timezone = "-05:30";
  CHECK_FALSE(datastream_decoder::check(o).has_value());
}

TEST_CASE("one decoder reuses its buffers across messages of different sizes and tables") {
  fixture f;
  f.configure_oracle_sample();
  const std::string big = with_payload(R"({"id":1,"blob":")" + std::string(100000, 'x') + "\"}");
  for (int round = 0; round < 3; ++round) {
    CHECK(f.ok(big).after.size() == 2);
    CHECK(f.ok(oracle_insert).table->name.table == "SAMPLE");
    CHECK(f.ok(mysql_event("INSERT", "mysql-bin.000001", 4)).table->name.table == "orders");
  }
  CHECK(f.catalog.entries().size() == 3);
}

}  // namespace sluice
