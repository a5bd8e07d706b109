#pragma once

#include <threads.h>

#include <cerrno>

namespace sluice_tsan {

// A pthread result as the C11 call's, mapped as glibc 2.36 maps it (thrd_err_map): the shims
// answer librdkafka exactly as the functions they stand in for.
inline int c11_result(int rc) {
  switch (rc) {
    case 0:
      return thrd_success;
    case ENOMEM:
      return thrd_nomem;
    case ETIMEDOUT:
      return thrd_timedout;
    case EBUSY:
      return thrd_busy;
    default:
      return thrd_error;
  }
}

}  // namespace sluice_tsan
