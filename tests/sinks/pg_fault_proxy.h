#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice {

// A TCP proxy on 127.0.0.1 between a PostgreSQL client and its server that breaks one
// connection at a COMMIT on request: the fault tests' way to reach "the connection broke
// during COMMIT" (SPEC §8), which pg_terminate_backend cannot time.
//
// It follows the frontend protocol (the untyped startup message, then typed messages) to
// find a simple-query "COMMIT", and then, once armed:
//   before_commit  closes both sides instead of forwarding it: the transaction is rolled back;
//   after_commit   forwards it, swallows the server's answer up to ReadyForQuery, then
//                  closes: the transaction committed but the client cannot know;
//   racing_commit  forwards it and closes at once: either outcome;
//   fatal_after_commit  as after_commit, but answers the client with the FATAL 57P01 that
//                  pg_terminate_backend sends ("terminating connection due to administrator
//                  command") before closing: committed, and the client is told it was killed.
// Needs sslmode=disable and gssencmode=disable on the client (with_proxy() adds them).
//
// stall(true) makes it a half-open link for the connections open at that moment: a middlebox
// that keeps both TCP connections alive but forwards nothing, in either direction, and passes
// on no close either. Connections accepted afterwards forward normally, so a client that gives
// up on its connection and reconnects gets through; stall(false) lets the old ones go on.
//
// Lifecycle: construct (it listens and accepts at once), arm() per fault, stall() on and off,
// destroy (closes every connection). Threading: an accept thread and one relay thread per
// connection; arm(), stall() and the counters are thread-safe.
class pg_fault_proxy {
 public:
  enum class fault : uint8_t {
    none,
    before_commit,
    after_commit,
    racing_commit,
    fatal_after_commit
  };

  pg_fault_proxy(std::string upstream_host, uint16_t upstream_port);
  ~pg_fault_proxy();
  pg_fault_proxy(const pg_fault_proxy&) = delete;
  pg_fault_proxy& operator=(const pg_fault_proxy&) = delete;

  uint16_t port() const { return _port; }
  // The next COMMIT any connection sends meets this fault; then the proxy disarms.
  void arm(fault f) { _armed.store(f); }
  bool armed() const { return _armed.load() != fault::none; }
  int faults_injected() const { return _injected.load(); }
  int commits_seen() const { return _commits.load(); }
  // Client connections accepted and connected to the server so far.
  int connections_accepted() const { return _accepted.load(); }

  // on: every connection open now stops forwarding (sockets kept open) until stall(false);
  // connections accepted later are not affected.
  void stall(bool on);
  bool stalled() const { return _stalled.load(); }

  // A postgresql:// DSN pointed at this proxy instead of its host and port.
  std::string with_proxy(const std::string& dsn) const;

 private:
  void accept_loop();
  void relay(int client, int server, uint64_t id);
  bool is_stalled(uint64_t id) const { return _stalled.load() && id < _stall_before.load(); }

  std::string _upstream_host;
  uint16_t _upstream_port;
  int _listen = -1;
  uint16_t _port = 0;
  std::atomic<bool> _stopping{false};
  std::atomic<fault> _armed{fault::none};
  std::atomic<int> _injected{0};
  std::atomic<int> _commits{0};
  std::atomic<int> _accepted{0};
  std::atomic<bool> _stalled{false};
  std::atomic<uint64_t> _stall_before{0};  // connections with a smaller id are stalled
  std::mutex _mutex;                       // guards _threads, _fds and _next_id
  uint64_t _next_id = 0;                   // the id of the next connection accepted
  std::vector<std::thread> _threads;
  std::vector<int> _fds;  // open sockets, shut down on destruction
  std::thread _acceptor;  // last: joined first
};

// Host and port of a postgresql:// DSN ("postgresql://user@host:port/db?…").
bool parse_dsn_host_port(const std::string& dsn, std::string& host, uint16_t& port);

}  // namespace sluice
