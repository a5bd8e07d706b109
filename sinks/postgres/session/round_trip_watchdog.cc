#include "sinks/postgres/session/round_trip_watchdog.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>

namespace sluice {
namespace {

// Milliseconds since data last arrived on a TCP socket; -1 when it is not one.
int64_t since_last_received(int socket) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return -1;
  return info.tcpi_last_data_recv;
}

}  // namespace

round_trip_watchdog::~round_trip_watchdog() {
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
  }
  _cv.notify_all();
  if (_thread.joinable()) _thread.join();
}

void round_trip_watchdog::arm(int socket) {
  if (_deadline.count() <= 0 || socket < 0) return;
  std::lock_guard lock(_mutex);
  _socket = socket;
  _off_clock = false;
  _since = std::chrono::steady_clock::now();
  if (!_thread.joinable()) _thread = std::thread([this] { run(); });
}

void round_trip_watchdog::disarm() {
  std::lock_guard lock(_mutex);
  _socket = -1;
}

void round_trip_watchdog::off_clock(bool off) {
  std::lock_guard lock(_mutex);
  _off_clock = off;
  _since = std::chrono::steady_clock::now();
}

uint64_t round_trip_watchdog::cuts() const {
  std::lock_guard lock(_mutex);
  return _cuts;
}

void round_trip_watchdog::run() {
  const auto tick = std::clamp<std::chrono::milliseconds>(
      _deadline / 8, std::chrono::milliseconds(50), std::chrono::milliseconds(1000));
  std::unique_lock lock(_mutex);
  while (!_cv.wait_for(lock, tick, [&] { return _stopping; })) {
    if (_socket < 0 || _off_clock) continue;
    const auto armed_for = std::chrono::steady_clock::now() - _since;
    if (armed_for < _deadline) continue;
    const int64_t quiet = since_last_received(_socket);
    if (quiet < 0 || quiet < _deadline.count()) continue;
    // The blocked call sees the connection end and fails; the session reconnects.
    ::shutdown(_socket, SHUT_RDWR);
    _socket = -1;
    ++_cuts;
  }
}

}  // namespace sluice
