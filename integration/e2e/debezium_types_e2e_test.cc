// A faithful replica from real Debezium output (issue 13): the committed fixtures
// (tests/fixtures/debezium, written by the Debezium PostgreSQL connector from the source in
// integration/fixtures/debezium) replayed through `sluice replay` into auto-created tables.
// The replica's column types must be the source's, and its values the source's: the source
// itself is rebuilt here from the same SQL, and every column compared without casts on the
// replica's side.

#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "integration/support/fixture_files.h"
#include "integration/support/kcat_lines.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string source_dir() {
  const char* dir = std::getenv("SLUICE_SOURCE_DIR");
  REQUIRE(dir);
  return dir;
}

// The fixture's {"key": K, "value": V} lines as `kcat -C -J` lines of `topic`. The keys of
// these tables have no field named "value", so the first ,"value": ends the key.
std::string kcat_file(const std::string& fixture, const std::string& topic) {
  std::istringstream lines(read_file(source_dir() + "/tests/fixtures/debezium/" + fixture));
  std::string out, line;
  int64_t offset = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const std::string head = "{\"key\":";
    const size_t split = line.find(",\"value\":");
    REQUIRE((line.starts_with(head) && split != std::string::npos && line.ends_with("}")));
    const std::string key = line.substr(head.size(), split - head.size());
    const std::string value =
        line.substr(split + 9, line.size() - 1 - (split + 9));  // without the closing brace
    const auto or_null = [](const std::string& json) {
      return json == "null" ? std::nullopt : std::optional<std::string>(json);
    };
    out += kcat_line(topic, 0, offset++, or_null(key), or_null(value)) + "\n";
  }
  return out;
}

std::string config(const std::string& connector, const std::string& topic,
                   const std::string& target_schema) {
  return "name: " + connector + "\nkafka:\n  bootstrap.servers: 127.0.0.1:1\ntopics: [" + topic +
         "]\nformat: debezium\npostgres:\n  dsn: \"" + postgres_dsn() +
         "\"\ntable.name.format: \"" + target_schema +
         ".${table}\"\nbatch.size: 4\nmetrics:\n  listen: \"\"\n";
}

// Rebuilds the Debezium source in a schema of its own: its final state is what the replica
// must hold.
std::string make_source() {
  const std::string schema = unique_name("dbz_source");
  const std::string dir = source_dir() + "/integration/fixtures/debezium/";
  execute("CREATE SCHEMA " + schema + "; SET search_path TO " + schema + "; " +
          read_file(dir + "schema.sql") + "; " + read_file(dir + "changes.sql") +
          "; RESET search_path");
  return schema;
}

// Rows of the source whose column differs from the replica's, compared by the column's own
// type (the replica's, without a cast) unless `how` says what Debezium changes on the way.
int64_t differing(const std::string& source, const std::string& replica, const std::string& table,
                  const std::string& column, const std::string& how = "") {
  const std::string s = "s." + column, r = "r." + column;
  const std::string same = how.empty() ? s + " IS NOT DISTINCT FROM " + r : how;
  return std::stoll(
      str(query("SELECT count(*) FROM " + source + "." + table + " s FULL JOIN \"" + replica +
                "\"." + table + " r USING (id) WHERE NOT (" + same + ")")[0][0]));
}

}  // namespace

TEST_CASE(
    "a Debezium stream with column.propagate.source.type replicates with the source's types "
    "and values") {
  const std::string source = make_source();
  const std::string replica = unique_name("dbz_replica");
  const std::string connector = unique_name("dbz_types");
  const std::string topic = "fx_propagate.public.all_types";
  const std::string path =
      write_run_file("dbz.jsonl", kcat_file("propagate_all_types.jsonl", topic));
  const std::string cfg = write_run_file("dbz.yaml", config(connector, topic, replica));
  const command_result r = run_sluice({"replay", "-c", cfg, "--file", path});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);

  const auto want = column_types(source, "all_types");
  const auto got = column_types(replica, "all_types");
  // What PostgreSQL cannot get back from Debezium's JSON: an enum's type (sent as its text),
  // bit strings (text), char(n) (sent as varchar: its length, padding included), json (the
  // stream says json: jsonb), timetz without a precision (the stream says 6, the default).
  const std::map<std::string, std::string> differs = {
      {"c_enum", "text"},   {"c_timetz", "time(6) with time zone"}, {"c_bit4", "text"},
      {"c_varbit", "text"}, {"c_char", "character varying(10)"},    {"c_json", "jsonb"}};
  for (const auto& [column, type] : want) {
    INFO("column " << column);
    auto it = differs.find(column);
    CHECK(got.at(column) == (it == differs.end() ? type : it->second));
  }
  CHECK(got.size() == want.size());

  // Every column's values, row by row, deletes included.
  for (const auto& [column, _] : want) {
    INFO("column " << column);
    std::string how;
    if (column == "c_enum" || column == "c_bit4" || column == "c_varbit") {
      how = "s." + column + "::text IS NOT DISTINCT FROM r." + column;
    } else if (column == "c_char") {
      how = "s." + column + " IS NOT DISTINCT FROM r." + column + "::bpchar";
    } else if (column == "c_json") {
      how = "s." + column + "::jsonb IS NOT DISTINCT FROM r." + column;
    } else if (column == "c_xml") {
      how = "s." + column + "::text IS NOT DISTINCT FROM r." + column + "::text";  // no xml =
    } else if (column == "c_timetz") {
      // Debezium's ZonedTime is the time at UTC.
      how = "s." + column + " AT TIME ZONE 'UTC' IS NOT DISTINCT FROM r." + column;
    } else if (column == "c_int4_arr") {
      // Debezium sends a two-dimensional array as [null, null] (it supports one dimension).
      how = "s." + column + " IS NOT DISTINCT FROM r." + column + " OR array_ndims(s." + column +
            ") > 1";
    } else if (column == "c_interval") {
      // Debezium's interval.handling.mode=numeric counts a month as 30.4375 days, PostgreSQL
      // as 30.
      how = "extract(epoch FROM s." + column + ") + extract(month FROM s." + column +
            ") * 0.4375 * 86400 IS NOT DISTINCT FROM extract(epoch FROM r." + column + ")";
    }
    CHECK(differing(source, replica, "all_types", column, how) == 0);
  }
}

TEST_CASE("without column.propagate.source.type the Connect schema gives the types") {
  const std::string replica = unique_name("dbz_replica");
  const std::string connector = unique_name("dbz_types");
  const std::string topic = "fx_default.public.all_types";
  const std::string path = write_run_file("dbz.jsonl", kcat_file("default_all_types.jsonl", topic));
  const std::string cfg = write_run_file("dbz.yaml", config(connector, topic, replica));
  const command_result r = run_sluice({"replay", "-c", cfg, "--file", path});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto got = column_types(replica, "all_types");
  CHECK(got.at("id") == "bigint");
  CHECK(got.at("c_smallint") == "smallint");
  CHECK(got.at("c_integer") == "integer");
  CHECK(got.at("c_real") == "real");
  CHECK(got.at("c_numeric") == "numeric(12,2)");
  CHECK(got.at("c_numeric_u") == "numeric");
  CHECK(got.at("c_varchar") == "text");  // Connect's string says no length
  CHECK(got.at("c_bytea") == "bytea");
  CHECK(got.at("c_uuid") == "uuid");
  CHECK(got.at("c_date") == "date");
  CHECK(got.at("c_time3") == "time(3) without time zone");
  CHECK(got.at("c_ts6") == "timestamp(6) without time zone");
  CHECK(got.at("c_tstz6") == "timestamp with time zone");
  CHECK(got.at("c_int4_arr") == "integer[]");
  CHECK(got.at("c_text_arr") == "text[]");
  // The bytes are bytes: 0x00 and 0xff survive, as the source has them.
  CHECK(str(query("SELECT count(*) FROM \"" + replica +
                  "\".all_types WHERE position('\\x00'::bytea IN c_bytea) > 0")[0][0]) != "0");
}

}  // namespace sluice::testing

namespace sluice::testing {

TEST_CASE("into tables the user created like the source's, every Debezium value lands as it was") {
  const std::string source = make_source();
  const std::string replica = unique_name("dbz_user");
  execute("CREATE SCHEMA \"" + replica + "\"");
  for (const char* table : {"all_types", "uuid_pk", "bytea_pk"}) {
    execute("CREATE TABLE \"" + replica + "\"." + table + " (LIKE " + source + "." + table +
            " INCLUDING ALL)");
  }
  const std::string connector = unique_name("dbz_user");
  std::string lines;
  for (const char* table : {"all_types", "uuid_pk", "bytea_pk"}) {
    lines += kcat_file(std::string("default_") + table + ".jsonl",
                       std::string("fx_default.public.") + table);
  }
  const std::string path = write_run_file("dbz_user.jsonl", lines);
  std::string cfg_text = config(connector, "fx_default.public.all_types", replica);
  const std::string topics =
      "[fx_default.public.all_types, fx_default.public.uuid_pk, fx_default.public.bytea_pk]";
  cfg_text.replace(cfg_text.find("[fx_default.public.all_types]"),
                   std::string("[fx_default.public.all_types]").size(), topics);
  const std::string cfg = write_run_file("dbz_user.yaml", cfg_text);
  const command_result r = run_sluice({"replay", "-c", cfg, "--file", path});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("dead letters  0") != std::string::npos);

  // The user's types were kept: sluice only added its own columns.
  for (const char* table : {"all_types", "uuid_pk", "bytea_pk"}) {
    CHECK(column_types(replica, table) == column_types(source, table));
  }
  for (const auto& [column, _] : column_types(source, "all_types")) {
    INFO("column " << column);
    const std::string s = "s." + column, t = "r." + column;
    std::string how;
    if (column == "c_json" || column == "c_xml") {
      how = s + "::text IS NOT DISTINCT FROM " + t + "::text";
    } else if (column == "c_timetz") {
      how = s + " AT TIME ZONE 'UTC' IS NOT DISTINCT FROM " + t;
    } else if (column == "c_int4_arr") {
      how = s + " IS NOT DISTINCT FROM " + t + " OR array_ndims(" + s + ") > 1";
    } else if (column == "c_interval") {
      how = "extract(epoch FROM " + s + ") + extract(month FROM " + s +
            ") * 0.4375 * 86400 IS NOT DISTINCT FROM extract(epoch FROM " + t + ")";
    } else if (column == "c_varbit") {
      // Without the propagated type, Debezium's bytes do not say a varbit's length: its
      // leading zeros come back (B'110' as 16 bits); the value is the same number.
      how = "lpad(" + s + "::text, 16, '0') IS NOT DISTINCT FROM " + t + "::text";
    }
    CHECK(differing(source, replica, "all_types", column, how) == 0);
  }
  for (const char* column : {"note", "body"})
    CHECK(differing(source, replica, "uuid_pk", column) == 0);
  CHECK(differing(source, replica, "bytea_pk", "note") == 0);
}

}  // namespace sluice::testing
