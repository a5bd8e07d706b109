#include "tests/sinks/pg_fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace sluice {
namespace {

uint32_t read_be32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The length of the first complete message in buf (0: incomplete). Typed messages are
// 1 + length bytes; the startup message is length bytes.
size_t complete_message(const std::string& buf, size_t at, bool typed) {
  const size_t head = typed ? 1 : 0;
  if (buf.size() < at + head + 4) return 0;
  const size_t len = head + read_be32(buf.data() + at + head);
  return buf.size() - at >= len ? len : 0;
}

bool is_commit_query(const std::string& msg) {
  if (msg.empty() || msg[0] != 'Q') return false;
  std::string text(msg.data() + 5, msg.size() - 5);
  while (!text.empty() && (text.back() == '\0' || text.back() == ';' ||
                           std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text == "COMMIT" || text == "END";
}

// The ErrorResponse a backend sends when pg_terminate_backend() ends it.
std::string admin_shutdown_error() {
  std::string body;
  for (const auto& [code, text] : {std::pair<char, const char*>{'S', "FATAL"},
                                   {'V', "FATAL"},
                                   {'C', "57P01"},
                                   {'M', "terminating connection due to administrator command"}}) {
    body.push_back(code);
    body += text;
    body.push_back('\0');
  }
  body.push_back('\0');
  const uint32_t len = htonl(static_cast<uint32_t>(body.size() + 4));
  std::string out = "E";
  out.append(reinterpret_cast<const char*>(&len), 4);
  return out + body;
}

}  // namespace

bool parse_dsn_host_port(const std::string& dsn, std::string& host, uint16_t& port) {
  const size_t at = dsn.find('@');
  const size_t scheme = dsn.find("://");
  if (scheme == std::string::npos) return false;
  const size_t begin = at == std::string::npos ? scheme + 3 : at + 1;
  const size_t slash = dsn.find('/', begin);
  const std::string hostport = dsn.substr(begin, slash - begin);
  const size_t colon = hostport.rfind(':');
  if (colon == std::string::npos) return false;
  host = hostport.substr(0, colon);
  port = static_cast<uint16_t>(std::stoi(hostport.substr(colon + 1)));
  return true;
}

pg_fault_proxy::pg_fault_proxy(std::string upstream_host, uint16_t upstream_port)
    : _upstream_host(std::move(upstream_host)), _upstream_port(upstream_port) {
  _listen = ::socket(AF_INET, SOCK_STREAM, 0);
  if (_listen < 0) throw std::runtime_error("pg_fault_proxy: socket() failed");
  const int one = 1;
  ::setsockopt(_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(_listen, 64) != 0) {
    ::close(_listen);
    throw std::runtime_error("pg_fault_proxy: bind/listen failed");
  }
  socklen_t len = sizeof addr;
  ::getsockname(_listen, reinterpret_cast<sockaddr*>(&addr), &len);
  _port = ntohs(addr.sin_port);
  _acceptor = std::thread([this] { accept_loop(); });
}

pg_fault_proxy::~pg_fault_proxy() {
  _stopping.store(true);
  ::shutdown(_listen, SHUT_RDWR);
  _acceptor.join();
  ::close(_listen);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(_mutex);
    for (int fd : _fds)
      ::shutdown(fd, SHUT_RDWR);
    threads.swap(_threads);
  }
  for (std::thread& t : threads)
    t.join();
}

std::string pg_fault_proxy::with_proxy(const std::string& dsn) const {
  const std::string from = _upstream_host + ":" + std::to_string(_upstream_port);
  const size_t at = dsn.find(from);
  if (at == std::string::npos) throw std::invalid_argument("DSN without " + from + ": " + dsn);
  std::string out = dsn;
  out.replace(at, from.size(), "127.0.0.1:" + std::to_string(_port));
  out += out.find('?') == std::string::npos ? "?" : "&";
  return out + "sslmode=disable&gssencmode=disable";
}

void pg_fault_proxy::stall(bool on) {
  std::lock_guard lock(_mutex);
  if (on) _stall_before.store(_next_id);
  _stalled.store(on);
}

void pg_fault_proxy::accept_loop() {
  while (!_stopping.load()) {
    const int client = ::accept(_listen, nullptr, nullptr);
    if (client < 0) {
      if (_stopping.load()) return;
      continue;
    }
    const int server = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(_upstream_port);
    ::inet_pton(AF_INET, _upstream_host == "localhost" ? "127.0.0.1" : _upstream_host.c_str(),
                &addr.sin_addr);
    if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(client);
      if (server >= 0) ::close(server);
      continue;
    }
    const int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard lock(_mutex);
    _fds.push_back(client);
    _fds.push_back(server);
    const uint64_t id = _next_id++;
    ++_accepted;
    _threads.emplace_back([this, client, server, id] { relay(client, server, id); });
  }
}

void pg_fault_proxy::relay(int client, int server, uint64_t id) {
  std::string from_client;  // bytes of an incomplete frontend message
  bool typed = false;       // past the startup message
  char buf[65536];
  auto finish = [&] {
    std::lock_guard lock(_mutex);
    ::shutdown(client, SHUT_RDWR);
    ::shutdown(server, SHUT_RDWR);
    ::close(client);
    ::close(server);
    _fds.erase(std::remove_if(_fds.begin(), _fds.end(),
                              [&](int fd) { return fd == client || fd == server; }),
               _fds.end());
  };
  // Reads the server's answer to a COMMIT up to ReadyForQuery without passing it on.
  auto swallow_answer = [&] {
    std::string in;
    for (;;) {
      while (size_t len = complete_message(in, 0, true)) {
        if (in[0] == 'Z') return;
        in.erase(0, len);
      }
      const ssize_t n = ::recv(server, buf, sizeof buf, 0);
      if (n <= 0) return;
      in.append(buf, static_cast<size_t>(n));
    }
  };
  pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
  while (!_stopping.load()) {
    if (is_stalled(id)) {
      // Half-open: read nothing (so nothing is forwarded and no close is noticed), keep both
      // sockets open; the kernel still acknowledges what arrives until its buffers fill.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (::poll(fds, 2, 200) < 0) break;
    if (is_stalled(id)) continue;  // stall() came while polling: forward nothing more
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::recv(server, buf, sizeof buf, 0);
      if (n <= 0 || !write_all(client, buf, static_cast<size_t>(n))) break;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::recv(client, buf, sizeof buf, 0);
      if (n <= 0) break;
      from_client.append(buf, static_cast<size_t>(n));
      bool cut = false;
      size_t sent = 0;
      while (size_t len = complete_message(from_client, sent, typed)) {
        const std::string msg = from_client.substr(sent, len);
        const bool commit = typed && is_commit_query(msg);
        typed = true;
        if (commit) ++_commits;
        const fault f = commit ? _armed.exchange(fault::none) : fault::none;
        if (f == fault::before_commit) {
          cut = true;
        } else {
          if (!write_all(server, msg.data(), msg.size())) {
            cut = true;
          } else if (f == fault::after_commit || f == fault::fatal_after_commit) {
            swallow_answer();
            if (f == fault::fatal_after_commit) {
              const std::string fatal = admin_shutdown_error();
              write_all(client, fatal.data(), fatal.size());
            }
            cut = true;
          } else if (f == fault::racing_commit) {
            cut = true;
          }
        }
        if (f != fault::none) ++_injected;
        sent += len;
        if (cut) break;
      }
      from_client.erase(0, sent);
      if (cut) break;
    }
  }
  finish();
}

}  // namespace sluice
