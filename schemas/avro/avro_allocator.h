#pragma once

#include <cstddef>

namespace sluice {

// Bounds every single allocation Avro C makes (avro_set_allocator is process-wide). Avro
// allocates a string's or a block's length before reading its bytes: without a bound, a
// hostile length prefix of a few bytes asks for gigabytes. With it, such an allocation
// returns NULL and Avro C reports an error instead.
//
//   install_avro_allocator(max):  bound <- max(bound, max); installed once, thread-safe
//
// The bound only grows: decoders of several topics (each with its own message size limit)
// share the one allocator, and no message of any of them holds a longer string than its
// own limit. Lifecycle: for the life of the process. Threading: safe.
void install_avro_allocator(size_t max_single_allocation);

// The current bound, for tests.
size_t avro_allocation_bound();

}  // namespace sluice
