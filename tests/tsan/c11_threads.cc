// ThreadSanitizer builds only (SLUICE_TSAN): librdkafka uses C11 threads (thrd_create, mtx_*,
// cnd_*, call_once), which glibc 2.36 implements by calling its internal pthread functions, out
// of TSan's reach: neither GCC 12's nor clang 14's runtime intercepts them. A thread started so
// runs without TSan's per-thread state and crashes at its first allocation (seen in the mock
// cluster's thread), and every hand-over through librdkafka's queues (a delivery report's
// opaque, made on one lane and served on another) looks like a race. Linked into the
// instrumented executables, these definitions take precedence over glibc's for librdkafka (the
// executable is searched first) and go through the intercepted pthread calls, on the same
// objects: glibc lays mtx_t, cnd_t and once_flag out as pthread_mutex_t, pthread_cond_t and
// pthread_once_t. No library serves this: it is the runtime's gap.
//
// Threads here, locks in c11_locks.cc: tsan.supp names only that file, so that a race in
// sluice's code on a librdkafka thread (a delivery callback), whose stack ends in this file's
// trampoline, is still reported.
#include <pthread.h>
#include <threads.h>

#include <cstdint>
#include <new>

#include "tests/tsan/c11_result.h"

namespace {

struct start {
  thrd_start_t func;
  void* arg;
};

void* trampoline(void* p) {
  const start s = *static_cast<start*>(p);
  delete static_cast<start*>(p);
  return reinterpret_cast<void*>(static_cast<intptr_t>(s.func(s.arg)));
}

}  // namespace

extern "C" int thrd_create(thrd_t* thr, thrd_start_t func, void* arg) {
  auto* s = new (std::nothrow) start{func, arg};
  if (!s) return thrd_nomem;
  const int rc = pthread_create(thr, nullptr, trampoline, s);
  if (rc != 0) delete s;
  return sluice_tsan::c11_result(rc);
}

extern "C" int thrd_join(thrd_t thr, int* res) {
  void* out = nullptr;
  const int rc = pthread_join(thr, &out);
  if (rc == 0 && res) *res = static_cast<int>(reinterpret_cast<intptr_t>(out));
  return sluice_tsan::c11_result(rc);
}

extern "C" int thrd_detach(thrd_t thr) {
  return sluice_tsan::c11_result(pthread_detach(thr));
}
