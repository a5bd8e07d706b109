// merge_engine throughput on an in-memory batch (SPEC §8 "Benchmarks"): 10,000-change
// batches, 20% of the changes on a small set of hot keys (so they collapse), five columns of
// ~200 bytes in all, two-part CDC CSNs. Prints changes per second on one core: the median and
// best of the timed rounds, for merge() alone and with the merged batch freed, in wall time and
// in the thread's CPU time (the machine is shared: time spent descheduled is not the merge's,
// so the CPU-time median is the per-core figure; wall time is kept for comparison).
//
//   build/integration/merge_bench [--rounds N] [--batch N] [--hot-share F] [--hot-keys N]
//
// The batch is copied before each round outside the timed section (merge() consumes it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"

namespace {

using sluice::change;
using clock_type = std::chrono::steady_clock;

// Seconds of CPU time this thread has used.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct options {
  int rounds = 200;
  size_t batch = 10'000;
  double hot_share = 0.2;  // share of the changes that go to hot keys
  size_t hot_keys = 200;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batch")) o.batch = std::strtoul(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--hot-share")) o.hot_share = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--hot-keys")) o.hot_keys = std::strtoul(argv[i + 1], nullptr, 10);
  }
  return o;
}

std::string filler(std::mt19937_64& rng, size_t n) {
  static constexpr char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(n, ' ');
  for (char& c : s)
    c = chars[rng() % (sizeof chars - 1)];
  return s;
}

// A Datastream-like CDC batch: keys 0..hot_keys-1 are hot, the rest unique; CSNs rise.
std::vector<change> make_batch(const options& o, sluice::table_entry* table) {
  std::mt19937_64 rng(42);
  std::vector<change> out;
  out.reserve(o.batch);
  int64_t next_cold = static_cast<int64_t>(o.hot_keys);
  for (size_t i = 0; i < o.batch; ++i) {
    const bool hot = std::uniform_real_distribution<double>(0, 1)(rng) < o.hot_share;
    const int64_t id = hot ? static_cast<int64_t>(rng() % o.hot_keys) : next_cold++;
    change c;
    c.op = i % 20 == 19 ? sluice::op_kind::remove : sluice::op_kind::upsert;
    c.table = table;
    c.key = sluice::make_row_key({"id"}, {sluice::value::number(std::to_string(id))}).value();
    c.seq = sluice::csn_builder().add(1).add(static_cast<int64_t>(1'000'000 + i)).build();
    if (c.op == sluice::op_kind::upsert) {
      c.after = {{"id", sluice::value::number(std::to_string(id))},
                 {"amount", sluice::value::number(std::to_string(rng() % 1'000'000) + ".25")},
                 {"customer", sluice::value::string(filler(rng, 48))},
                 {"status", sluice::value::string(filler(rng, 16))},
                 {"note", sluice::value::string(filler(rng, 80))},
                 {"payload", sluice::value::json("{\"k\":\"" + filler(rng, 32) + "\"}")}};
    }
    c.source.source_ts = sluice::timestamp_ns(1'700'000'000'000'000'000 + static_cast<int64_t>(i));
    c.source.origin.topic = "cdc.orders";
    c.source.origin.offset = sluice::kafka_offset(static_cast<int64_t>(i));
    out.push_back(std::move(c));
  }
  return out;
}

size_t image_bytes(const std::vector<change>& batch) {
  size_t bytes = 0, upserts = 0;
  for (const change& c : batch) {
    if (c.after.empty()) continue;
    ++upserts;
    for (size_t k = 1; k < c.after.size(); ++k)
      bytes += c.after[k].v.text.size();
  }
  return upserts ? bytes / upserts : 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  sluice::table_catalog catalog;
  sluice::table_entry* table = catalog.intern({"", "shop", "orders"});
  const std::vector<change> batch = make_batch(o, table);

  sluice::merge_engine merger;
  std::vector<double> merge_only, with_free, merge_cpu, with_free_cpu;
  size_t rows = 0;
  for (int round = -5; round < o.rounds; ++round) {  // 5 rounds of warm-up
    std::vector<change> input = batch;
    const double c0 = thread_seconds();
    const auto t0 = clock_type::now();
    sluice::merged_batch merged = merger.merge(std::move(input));
    const auto t1 = clock_type::now();
    const double c1 = thread_seconds();
    rows = merged.stats.rows;
    { sluice::merged_batch gone = std::move(merged); }
    input.clear();
    input.shrink_to_fit();
    const auto t2 = clock_type::now();
    const double c2 = thread_seconds();
    if (round < 0) continue;
    merge_cpu.push_back(c1 - c0);
    with_free_cpu.push_back(c2 - c0);
    merge_only.push_back(std::chrono::duration<double>(t1 - t0).count());
    with_free.push_back(std::chrono::duration<double>(t2 - t0).count());
  }
  const double n = static_cast<double>(batch.size());
  std::printf(
      "merge_bench: %zu-change batches, %.0f%% on %zu hot keys, 5 columns of %zu bytes "
      "per image, %zu keys out; %d rounds, one thread\n",
      batch.size(), o.hot_share * 100, o.hot_keys, image_bytes(batch), rows, o.rounds);
  std::printf("%-22s %16s %16s\n", "", "median ch/s", "best ch/s");
  std::printf("%-22s %16.0f %16.0f\n", "merge()", n / median(merge_only),
              n / *std::min_element(merge_only.begin(), merge_only.end()));
  std::printf("%-22s %16.0f %16.0f\n", "merge() + free", n / median(with_free),
              n / *std::min_element(with_free.begin(), with_free.end()));
  std::printf("%-22s %16.0f %16.0f\n", "merge() cpu", n / median(merge_cpu),
              n / *std::min_element(merge_cpu.begin(), merge_cpu.end()));
  std::printf("%-22s %16.0f %16.0f\n", "merge() + free cpu", n / median(with_free_cpu),
              n / *std::min_element(with_free_cpu.begin(), with_free_cpu.end()));
  return 0;
}
