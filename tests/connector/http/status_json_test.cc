#include "connector/http/status_json.h"

#include <doctest/doctest.h>

using sluice::connector_state;
using sluice::connector_status;
using sluice::kafka_offset;
using sluice::partition_id;
using sluice::partition_status;
using sluice::to_json;

TEST_CASE("unknown offsets and lag are null in /status") {
  connector_status s;
  s.name = "n";
  s.state = connector_state::running;
  s.assigned.push_back({"t", partition_id{2}, std::nullopt, kafka_offset{10}});
  s.assigned.push_back({"t", partition_id{3}, kafka_offset{4}, std::nullopt});
  const std::string j = to_json(s, "h:1");
  CHECK(j.find("{\"topic\":\"t\",\"partition\":2,\"committed_offset\":null,"
               "\"high_watermark\":10,\"lag\":null}") != std::string::npos);
  CHECK(j.find("{\"topic\":\"t\",\"partition\":3,\"committed_offset\":4,"
               "\"high_watermark\":null,\"lag\":null}") != std::string::npos);
  CHECK(j.find("trace") == std::string::npos);
}

TEST_CASE("the lag of a partition is never negative") {
  const partition_status p{"t", partition_id{0}, kafka_offset{12}, kafka_offset{10}};
  CHECK(p.lag() == 0);
}

TEST_CASE("strings in /status are JSON-escaped") {
  connector_status s;
  s.name = "a\"b\\c";
  s.state = connector_state::failed;
  s.last_error = "line1\nline2\t\x01";
  const std::string j = to_json(s, "h:1");
  CHECK(j.rfind("{\"name\":\"a\\\"b\\\\c\",\"connector\":{\"state\":\"FAILED\",\"worker_id\":"
                "\"h:1\",\"trace\":\"line1\\nline2\\t\\u0001\"}",
                0) == 0);
  CHECK(j.find("\"assigned\":[],\"last_error\":\"line1\\nline2\\t\\u0001\"}") != std::string::npos);
}

TEST_CASE("/status says since when and why the connector is DEGRADED") {
  connector_status s;
  s.name = "n";
  s.state = connector_state::degraded;
  s.degraded_reason = "PostgreSQL unreachable (lane-0): connection refused";
  s.degraded_since_ms = 1'783'915'261'123;  // 2026-07-13T04:01:01.123Z
  const std::string j = to_json(s, "h:1");
  CHECK(j.find("\"state\":\"DEGRADED\"") != std::string::npos);
  CHECK(j.find("\"degraded\":{\"since\":\"2026-07-13T04:01:01.123Z\",\"reason\":\"PostgreSQL "
               "unreachable (lane-0): connection refused\"}") != std::string::npos);
  s.state = connector_state::running;
  s.degraded_reason.clear();
  CHECK(to_json(s, "h:1").find("degraded") == std::string::npos);
}

TEST_CASE("/status names the tables whose DDL fails, with the error and since when") {
  connector_status s;
  s.name = "n";
  s.state = connector_state::running;
  CHECK(to_json(s, "h:1").find("failed_tables") == std::string::npos);
  s.failed_tables.push_back({"shop.orders", "42501 permission denied for schema shop",
                             1'783'915'261'123, 1'783'915'262'000, 7});
  const std::string j = to_json(s, "h:1");
  CHECK(j.find("\"failed_tables\":[{\"table\":\"shop.orders\",\"error\":\"42501 permission "
               "denied for schema shop\",\"since\":\"2026-07-13T04:01:01.123Z\",\"last\":"
               "\"2026-07-13T04:01:02.000Z\",\"dead_lettered\":7}]") != std::string::npos);
}
