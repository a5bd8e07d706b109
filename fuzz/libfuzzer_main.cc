// The libFuzzer entry point of one target, chosen at compile time (SLUICE_FUZZ_TARGET names
// its body, e.g. fuzz_goldengate). A broken invariant is an uncaught exception: libFuzzer
// reports it as a crash and saves the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    sluice::fuzz::SLUICE_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const sluice::fuzz::invariant_violation& e) {
    std::fprintf(stderr, "invariant violated: %s\n", e.what());
    std::abort();
  }
  return 0;
}
