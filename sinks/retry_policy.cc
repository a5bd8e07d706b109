#include "sinks/retry_policy.h"

#include <algorithm>
#include <random>

namespace sluice {

std::chrono::milliseconds retry_policy::backoff(int failures) const {
  const int64_t initial = std::max<int64_t>(1, backoff_initial.count());
  const int64_t cap = std::max<int64_t>(initial, backoff_max.count());
  int64_t delay = initial;
  for (int i = 1; i < failures && delay < cap; ++i)
    delay *= 2;
  delay = std::min(delay, cap);
  thread_local std::minstd_rand rng{std::random_device{}()};
  delay = delay / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(delay / 2 + 1));
  return std::chrono::milliseconds(delay);
}

}  // namespace sluice
