#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace sluice {

// The client-side deadline on a session's round trips (SPEC §5, issue "unattended survival"):
// a link that stops forwarding without closing — a middlebox or NAT keeping both TCP ends
// alive — answers keepalives and acknowledges what is sent, so neither TCP keepalives nor
// tcp_user_timeout notice it, and libpq would wait forever. While armed, the watchdog reads
// the kernel's time since data last arrived on the socket (TCP_INFO's tcpi_last_data_recv);
// past the deadline it shuts the socket down, and the blocked libpq call fails as a lost
// connection, which the session's retry loop handles like any other.
//
// libpq 15 has no per-call timeout and libpqxx 6.4 no asynchronous API, hence this by hand.
// Sockets that are not TCP (a Unix-domain DSN) are never cut: no middlebox sits there.
//
// Lifecycle: owned by a pg_session; its thread starts at the first arm() and is joined by the
// destructor. Threading: arm/disarm/off_clock from the session's thread; the watchdog thread
// only shuts a socket down under the same mutex that disarm() takes, so it never touches a
// descriptor the session has closed (and the kernel may have reused).
class round_trip_watchdog {
 public:
  explicit round_trip_watchdog(std::chrono::milliseconds deadline) : _deadline(deadline) {}
  ~round_trip_watchdog();
  round_trip_watchdog(const round_trip_watchdog&) = delete;
  round_trip_watchdog& operator=(const round_trip_watchdog&) = delete;

  // Watch `socket` until disarm(). A deadline of 0 watches nothing.
  void arm(int socket);
  void disarm();
  // Time spent off the server's clock (e.g. producing dead letters to Kafka inside a batch
  // transaction) does not count: the deadline starts again when `off` becomes false.
  void off_clock(bool off);
  // How many sockets it has cut.
  uint64_t cuts() const;

 private:
  void run();

  const std::chrono::milliseconds _deadline;
  mutable std::mutex _mutex;
  std::condition_variable _cv;
  int _socket = -1;  // armed when >= 0
  bool _off_clock = false;
  std::chrono::steady_clock::time_point _since{};  // armed (or back on the clock) at
  uint64_t _cuts = 0;
  bool _stopping = false;
  std::thread _thread;  // last: joined before the members it reads go
};

}  // namespace sluice
