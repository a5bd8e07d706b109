// A stored offset the log no longer holds (issue 27): retention, here DeleteRecords, moved a
// partition's log start past sluice's offset while it was stopped. librdkafka's own reset
// would have skipped to auto.offset.reset silently; sluice stops that partition and names the
// gap (offsets.out.of.range: fail, the default) while the other partition goes on, and with
// offsets.out.of.range: earliest it goes on from the log's start, saying what it skipped.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;

int64_t next_offset(const std::string& connector, int partition) {
  return count_of("SELECT coalesce(max(next_offset), -1) FROM sluice.offsets WHERE connector = '" +
                  connector + "' AND partition = " + std::to_string(partition));
}

}  // namespace

TEST_CASE("a stored offset the log no longer holds stops its partition, naming the gap") {
  const std::string topic = unique_name("cdc_gap");
  const std::string connector = unique_name("gap");
  const std::string s = unique_name("gapped");
  create_topic(topic, 2);
  const auto rows = [&](int partition, int first, int count) {
    std::vector<kafka_record> out;
    for (int id = first; id < first + count; ++id) {
      kafka_record r = datastream_record(s, "t", id, 100 + static_cast<uint64_t>(id));
      r.partition = partition;
      out.push_back(std::move(r));
    }
    return out;
  };
  produce(topic, rows(0, 1, 3));   // partition 0, offsets 0-2
  produce(topic, rows(1, 11, 3));  // partition 1, offsets 0-2
  const std::string config = basic_config(connector, topic, "datastream", "", 100);
  {
    sluice_process sluice(config, "gap_first");
    REQUIRE_MESSAGE(caught_up(connector, 6), sluice.log());
    CHECK(sluice.stop() == 0);
  }
  // While it is stopped: more of both, and partition 0's log start moves past its offset 3.
  produce(topic, rows(0, 4, 4));   // offsets 3-6
  produce(topic, rows(1, 14, 2));  // offsets 3-4
  delete_records(topic, 0, 5);     // offsets 3-4 (ids 4, 5) gone unread

  const std::string table = "\"" + s + "\".t";
  {
    sluice_process sluice(config, "gap_fail");
    // Partition 1 goes on; partition 0 stops where it was, the gap named.
    REQUIRE_MESSAGE(wait_until([&] { return next_offset(connector, 1) == 5; }, 60s), sluice.log());
    REQUIRE_MESSAGE(wait_until(
                        [&] {
                          return contains(sluice.log(), topic +
                                                            "[0]: offset 3 is no longer in "
                                                            "the log (it holds 5–6)");
                        },
                        30s),
                    sluice.log());
    CHECK(contains(sluice.log(), "offsets 3–4 were deleted before sluice read them"));
    CHECK(contains(sluice.log(), "partition stopped (offsets.out.of.range: fail)"));
    CHECK(next_offset(connector, 0) == 3);
    CHECK(count_of("SELECT count(*) FROM " + table + " WHERE id BETWEEN 4 AND 7") == 0);
    CHECK(count_of("SELECT count(*) FROM " + table + " WHERE id >= 14") == 2);
    CHECK(sluice.stop() == 0);
  }
  {
    // Told to go on from the log's start: what is left is applied, the skip logged.
    sluice_process sluice(config + "offsets.out.of.range: earliest\n", "gap_earliest");
    REQUIRE_MESSAGE(wait_until([&] { return next_offset(connector, 0) == 7; }, 60s), sluice.log());
    CHECK(contains(sluice.log(), "skipping offsets 3–4, which sluice never read"));
    CHECK(count_of("SELECT count(*) FROM " + table + " WHERE id IN (6, 7)") == 2);
    CHECK(count_of("SELECT count(*) FROM " + table + " WHERE id IN (4, 5)") == 0);
    CHECK(sluice.stop() == 0);
  }
}

}  // namespace sluice::testing
