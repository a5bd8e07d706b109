// The state the connector's threads share — the lanes' queues, the partition table, the
// connector's state holder — hammered from several threads at once. Run in every build, and
// under ThreadSanitizer by sluice_tsan_tests (scripts/test.sh), where a data race between them
// fails the run.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "connector/base/bounded_queue.h"
#include "connector/base/connector_state.h"
#include "connector/base/partition_table.h"

using namespace sluice;

TEST_CASE("a bounded queue hands every item to exactly one consumer, whoever pushes or closes") {
  constexpr int producers = 3, consumers = 3, per_producer = 2000;
  bounded_queue<std::vector<int>> q(4);  // small: pushes wait for room
  std::atomic<long> sum{0};
  std::atomic<int> popped{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      while (auto item = q.pop()) {
        sum += item->front();
        ++popped;
      }
    });
  }
  std::vector<std::thread> pushers;
  for (int p = 0; p < producers; ++p) {
    pushers.emplace_back([&, p] {
      for (int i = 0; i < per_producer; ++i) {
        std::vector<int> item{p * per_producer + i};
        if (i % 2) {
          while (!q.try_push_for(item, std::chrono::milliseconds(1))) {
          }
        } else {
          REQUIRE(q.push(std::move(item)));
        }
      }
    });
  }
  for (auto& t : pushers)
    t.join();
  q.close();  // consumers drain what is left, then stop
  for (auto& t : threads)
    t.join();
  constexpr long n = producers * per_producer;
  CHECK(popped.load() == n);
  CHECK(sum.load() == n * (n - 1) / 2);
  CHECK(!q.push({1}));  // closed: refused
}

TEST_CASE("the partition table takes claims, dispatches and commits from several threads") {
  partition_table table;
  const std::vector<topic_partition> parts = {
      {"a", partition_id{0}}, {"a", partition_id{1}}, {"b", partition_id{0}}};
  for (const topic_partition& tp : parts)
    table.claim(tp, owner_epoch{1}, kafka_offset{0}, 0);
  std::atomic<bool> done{false};
  // The consumer thread: dispatches, and now and then a partition is fenced and claimed again.
  std::thread consumer([&] {
    for (int64_t next = 1; next <= 3000; ++next) {
      for (const topic_partition& tp : parts)
        table.dispatch(tp, kafka_offset{next});
      if (next % 500 == 0) {
        table.remove(parts[2]);
        table.claim(parts[2], owner_epoch{next}, kafka_offset{next}, 1);
      }
      if (next % 700 == 0) table.rewind_to_committed();
    }
    done = true;
  });
  // Two lanes commit, the metrics thread reads.
  std::vector<std::thread> lanes;
  for (size_t lane = 0; lane < 2; ++lane) {
    lanes.emplace_back([&, lane] {
      for (int64_t next = 1; !done.load(); ++next) {
        table.committed(parts[lane], kafka_offset{next});
        table.high_watermark(parts[lane], next + 10);
      }
    });
  }
  std::atomic<size_t> seen{0};
  std::thread reader([&] {
    do {
      for (const auto& [tp, e] : table.snapshot())
        seen += e.committed.value() >= 0 ? 1 : 0;
    } while (!done.load());
  });
  consumer.join();
  for (auto& t : lanes)
    t.join();
  reader.join();
  CHECK(seen.load() > 0);
  const auto b = table.get(parts[2]);
  REQUIRE(b);
  CHECK(b->epoch == owner_epoch{3000});
  for (size_t lane = 0; lane < 2; ++lane)
    table.committed(parts[lane], kafka_offset{5});
  CHECK(table.get(parts[0])->committed == kafka_offset{5});
}

TEST_CASE("the state holder tells one story while every stage degrades, recovers and reads it") {
  std::atomic<int> changes{0}, degradations{0};
  state_holder state([&](connector_state) { ++changes; },
                     [&](const std::string&, bool on) { degradations += on ? 1 : -1; });
  state.set(connector_state::running);
  std::vector<std::thread> threads;
  const std::vector<std::string> dependencies = {"postgres", "kafka", "dead-letter queue",
                                                 "ownership"};
  for (const std::string& dependency : dependencies) {
    threads.emplace_back([&, dependency] {
      for (int i = 0; i < 2000; ++i)
        state.degrade(dependency, i % 2 ? "" : dependency + " away " + std::to_string(i));
      state.degrade(dependency, "");
    });
  }
  std::thread reader([&] {
    for (int i = 0; i < 2000; ++i) {
      const auto [why, since] = state.degraded();
      CHECK((why.empty() || since > 0));
      const connector_state s = state.get();
      CHECK((s == connector_state::running || s == connector_state::degraded));
    }
  });
  for (auto& t : threads)
    t.join();
  reader.join();
  CHECK(state.get() == connector_state::running);
  CHECK(degradations.load() == 0);  // every dependency that began to degrade also ended
  CHECK(changes.load() > 1);
  state.fail("boom");
  state.degrade("postgres", "away");
  CHECK(state.get() == connector_state::failed);
}
