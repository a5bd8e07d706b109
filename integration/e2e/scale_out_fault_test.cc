// Fault tests (label `fault`): several sluice processes in one consumer group over a
// 6-partition topic under a continuous producer; members are killed -9 and added back; a
// member is stopped with SIGTERM under load. The replica must end equal to the expected
// state, and no offset stored in PostgreSQL may ever move backwards.

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

// Watches sluice.offsets for a connector from its own thread and remembers any offset that
// went backwards.
class offset_watch {
 public:
  explicit offset_watch(std::string connector) : _connector(std::move(connector)) {
    _thread = std::thread([this] {
      while (!_stop) {
        try {
          for (auto& r : query("SELECT topic, partition, next_offset FROM sluice.offsets WHERE "
                               "connector = '" +
                               _connector + "' AND next_offset IS NOT NULL")) {
            const std::string key = str(r[0]) + "[" + str(r[1]) + "]";
            const int64_t offset = std::stoll(str(r[2]));
            auto [it, fresh] = _max.emplace(key, offset);
            if (!fresh) {
              if (offset < it->second) {
                _backwards.push_back(key + ": " + std::to_string(it->second) + " -> " +
                                     std::to_string(offset));
              }
              it->second = std::max(it->second, offset);
            }
          }
        } catch (const std::exception&) {
          // the state schema may not exist yet
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~offset_watch() { stop(); }
  void stop() {
    _stop = true;
    if (_thread.joinable()) _thread.join();
  }
  const std::vector<std::string>& backwards() const { return _backwards; }

 private:
  std::string _connector;
  std::atomic<bool> _stop{false};
  std::map<std::string, int64_t> _max;
  std::vector<std::string> _backwards;
  std::thread _thread;
};

// Produces `versions` full versions of `keys` rows, one wave per version, with a pause
// between waves so that the stream is still running while the test does things.
class wave_producer {
 public:
  wave_producer(std::string topic, std::string table, int keys, int versions, int pause_ms)
      : _topic(std::move(topic)), _table(std::move(table)) {
    _thread = std::thread([=, this] {
      uint64_t lsn = 5000;
      for (int v = 1; v <= versions; ++v) {
        std::vector<kafka_record> wave;
        for (int id = 1; id <= keys; ++id) {
          datastream_event e;
          e.table = _table;
          e.change_type = v == 1 ? "INSERT" : "UPDATE";
          e.lsn = ++lsn;
          e.payload_json = "\"id\":" + std::to_string(id) + ",\"version\":" + std::to_string(v) +
                           ",\"note\":\"wave " + std::to_string(v) + "\"";
          wave.push_back({std::to_string(id), e.json(), -1});
        }
        produce(_topic, wave);
        _produced += static_cast<int64_t>(wave.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      }
      _done = true;
    });
  }
  ~wave_producer() { join(); }
  void join() {
    if (_thread.joinable()) _thread.join();
  }
  bool done() const { return _done; }
  int64_t produced() const { return _produced; }

 private:
  std::string _topic, _table;
  std::atomic<bool> _done{false};
  std::atomic<int64_t> _produced{0};
  std::thread _thread;
};

void check_final_state(const std::string& table, int keys, int versions) {
  auto rows =
      query("SELECT count(*), count(*) FILTER (WHERE version = " + std::to_string(versions) +
            "), min(version) FROM public.\"" + table + "\"");
  CHECK(str(rows[0][0]) == std::to_string(keys));
  CHECK(str(rows[0][1]) == std::to_string(keys));
}

}  // namespace

TEST_CASE("three instances, members killed -9 and added back, end equal to the source") {
  const std::string topic = unique_name("cdc_group");
  const std::string table = unique_name("group_rows");
  const std::string connector = unique_name("group");
  create_topic(topic, 6);
  constexpr int keys = 300;
  constexpr int versions = 30;
  const std::string cfg = basic_config(connector, topic, "datastream", "apply.lanes: 2\n", 200);

  offset_watch watch(connector);
  wave_producer producer(topic, table, keys, versions, 150);
  std::vector<std::unique_ptr<sluice_process>> members;
  for (int i = 0; i < 3; ++i)
    members.push_back(std::make_unique<sluice_process>(cfg));

  std::mt19937 rng(std::random_device{}());
  int kills = 0;
  for (int round = 0; round < 4; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500 + rng() % 1000));
    const size_t victim = rng() % members.size();
    members[victim]->kill9();
    ++kills;
    members[victim] = std::make_unique<sluice_process>(cfg);  // a member added back
  }
  producer.join();
  const int64_t total = int64_t{keys} * versions;
  const bool caught_up =
      wait_until([&] { return committed_messages(connector) >= total; }, std::chrono::seconds(120));
  std::string logs;
  for (auto& m : members)
    logs += m->log();
  REQUIRE_MESSAGE(caught_up, logs);
  for (auto& m : members)
    CHECK(m->stop() == 0);
  watch.stop();

  CHECK(kills == 4);
  CHECK(committed_messages(connector) == total);
  CHECK_MESSAGE(watch.backwards().empty(), watch.backwards().front());
  check_final_state(table, keys, versions);
}

TEST_CASE("SIGTERM under load drains, exits 0, and a restart continues exactly") {
  const std::string topic = unique_name("cdc_drain");
  const std::string table = unique_name("drain_rows");
  const std::string connector = unique_name("drain");
  create_topic(topic, 6);
  constexpr int keys = 300;
  constexpr int versions = 20;
  const std::string cfg = basic_config(connector, topic, "datastream", "apply.lanes: 2\n", 200);

  offset_watch watch(connector);
  wave_producer producer(topic, table, keys, versions, 100);
  int stops_under_load = 0;
  for (int round = 0; round < 2; ++round) {
    sluice_process p(cfg);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const bool under_load = !producer.done();
    CHECK(p.stop() == 0);
    if (under_load) ++stops_under_load;
    CHECK(p.log().find("draining") != std::string::npos);
  }
  producer.join();
  const int64_t total = int64_t{keys} * versions;
  sluice_process last(cfg);
  // Wait for it to claim its partitions too: everything may be committed already, and a
  // SIGTERM before start-up would test nothing.
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        return last.log().find("claimed") != std::string::npos &&
                               committed_messages(connector) >= total;
                      },
                      std::chrono::seconds(120)),
                  last.log());
  CHECK(last.stop() == 0);
  watch.stop();
  CHECK(stops_under_load >= 1);
  CHECK(committed_messages(connector) == total);
  CHECK_MESSAGE(watch.backwards().empty(), watch.backwards().front());
  check_final_state(table, keys, versions);
}

}  // namespace sluice::testing
