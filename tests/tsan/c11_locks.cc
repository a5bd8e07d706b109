// ThreadSanitizer builds only (SLUICE_TSAN): librdkafka's C11 mutexes, condition variables and
// once flags routed through the intercepted pthread calls, on the same objects (glibc lays
// mtx_t, cnd_t and once_flag out as pthread_mutex_t, pthread_cond_t and pthread_once_t): why,
// in c11_threads.cc. Only librdkafka calls these, so tsan.supp may name this file: a lock made
// on one librdkafka thread and first taken on another, handed over by an atomic TSan cannot
// see, is not reported as a race on the lock itself.
#include <pthread.h>
#include <threads.h>

#include "tests/tsan/c11_result.h"

static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t));
static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t));
static_assert(sizeof(once_flag) == sizeof(pthread_once_t));

namespace {

pthread_mutex_t* native(mtx_t* m) {
  return reinterpret_cast<pthread_mutex_t*>(m);
}
pthread_cond_t* native(cnd_t* c) {
  return reinterpret_cast<pthread_cond_t*>(c);
}
int result(int rc) {
  return sluice_tsan::c11_result(rc);
}

}  // namespace

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
