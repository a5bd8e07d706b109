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
#include <pthread.h>
#include <threads.h>

#include <cerrno>
#include <cstdint>
#include <ctime>
#include <new>

static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t));
static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t));
static_assert(sizeof(once_flag) == sizeof(pthread_once_t));

namespace {

struct start {
  thrd_start_t func;
  void* arg;
};

pthread_mutex_t* native(mtx_t* m) {
  return reinterpret_cast<pthread_mutex_t*>(m);
}
pthread_cond_t* native(cnd_t* c) {
  return reinterpret_cast<pthread_cond_t*>(c);
}
int result(int rc) {
  return rc == 0           ? thrd_success
         : rc == ETIMEDOUT ? thrd_timedout
         : rc == EBUSY     ? thrd_busy
                           : thrd_error;
}

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
  if (rc == 0) return thrd_success;
  delete s;
  return rc == EAGAIN ? thrd_nomem : thrd_error;
}

extern "C" int thrd_join(thrd_t thr, int* res) {
  void* out = nullptr;
  if (pthread_join(thr, &out) != 0) return thrd_error;
  if (res) *res = static_cast<int>(reinterpret_cast<intptr_t>(out));
  return thrd_success;
}

extern "C" int thrd_detach(thrd_t thr) {
  return pthread_detach(thr) == 0 ? thrd_success : thrd_error;
}

extern "C" int mtx_init(mtx_t* m, int type) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  if (type & mtx_recursive) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  const int rc = pthread_mutex_init(native(m), &attr);
  pthread_mutexattr_destroy(&attr);
  return result(rc);
}
extern "C" int mtx_lock(mtx_t* m) {
  return result(pthread_mutex_lock(native(m)));
}
extern "C" int mtx_trylock(mtx_t* m) {
  return result(pthread_mutex_trylock(native(m)));
}
extern "C" int mtx_timedlock(mtx_t* m, const struct timespec* until) {
  return result(pthread_mutex_timedlock(native(m), until));
}
extern "C" int mtx_unlock(mtx_t* m) {
  return result(pthread_mutex_unlock(native(m)));
}
extern "C" void mtx_destroy(mtx_t* m) {
  pthread_mutex_destroy(native(m));
}

extern "C" int cnd_init(cnd_t* c) {
  return result(pthread_cond_init(native(c), nullptr));
}
extern "C" int cnd_signal(cnd_t* c) {
  return result(pthread_cond_signal(native(c)));
}
extern "C" int cnd_broadcast(cnd_t* c) {
  return result(pthread_cond_broadcast(native(c)));
}
extern "C" int cnd_wait(cnd_t* c, mtx_t* m) {
  return result(pthread_cond_wait(native(c), native(m)));
}
extern "C" int cnd_timedwait(cnd_t* c, mtx_t* m, const struct timespec* until) {
  return result(pthread_cond_timedwait(native(c), native(m), until));
}
extern "C" void cnd_destroy(cnd_t* c) {
  pthread_cond_destroy(native(c));
}

extern "C" void call_once(once_flag* flag, void (*func)(void)) {
  pthread_once(reinterpret_cast<pthread_once_t*>(flag), func);
}
