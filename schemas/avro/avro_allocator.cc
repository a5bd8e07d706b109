#include "schemas/avro/avro_allocator.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include <avro.h>

namespace sluice {
namespace {

std::atomic<size_t> bound{0};

// Avro C's allocator contract (avro/allocation.h), as Lua's: nsize 0 frees.
void* bounded_allocate(void*, void* ptr, size_t, size_t nsize) {
  if (nsize == 0) {
    std::free(ptr);
    return nullptr;
  }
  if (nsize > bound.load(std::memory_order_relaxed)) return nullptr;
  return std::realloc(ptr, nsize);
}

}  // namespace

void install_avro_allocator(size_t max_single_allocation) {
  static std::once_flag installed;
  size_t current = bound.load();
  while (current < max_single_allocation &&
         !bound.compare_exchange_weak(current, max_single_allocation)) {
  }
  std::call_once(installed, [] { avro_set_allocator(bounded_allocate, nullptr); });
}

size_t avro_allocation_bound() {
  return bound.load();
}

}  // namespace sluice
