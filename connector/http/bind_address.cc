#include "connector/http/bind_address.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "connector/http/http_server.h"

namespace sluice {
namespace {

constexpr std::string_view k_default_host = "127.0.0.1";

}  // namespace

bind_address resolve(std::string_view listen) {
  std::string_view host;
  std::string_view port;
  if (listen.find(':') == std::string_view::npos) {
    port = listen;
  } else if (listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':')
      throw http_server_error("metrics.listen '" + std::string(listen) +
                              "': expected [address]:port");
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
  } else {
    const size_t colon = listen.rfind(':');
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
  }
  if (host.empty()) host = k_default_host;
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoi(std::string(port)) > 65535)
    throw http_server_error("metrics.listen '" + std::string(listen) + "': expected host:port");

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string host_text(host);
  const std::string port_text(port);
  if (int rc = getaddrinfo(host_text.c_str(), port_text.c_str(), &hints, &found); rc != 0)
    throw http_server_error("metrics.listen '" + std::string(listen) + "': cannot resolve '" +
                            host_text + "': " + gai_strerror(rc));
  // The first IPv4 address, else the first IPv6 one.
  const addrinfo* chosen = nullptr;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      chosen = a;
      break;
    }
    if (a->ai_family == AF_INET6 && chosen == nullptr) chosen = a;
  }
  bind_address out;
  out.port = port_text;
  char text[INET6_ADDRSTRLEN] = {};
  if (chosen != nullptr && chosen->ai_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(chosen->ai_addr)->sin_addr, text,
              sizeof text);
  } else if (chosen != nullptr) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(chosen->ai_addr)->sin6_addr, text,
              sizeof text);
    out.ipv6 = true;
  }
  freeaddrinfo(found);
  if (chosen == nullptr)
    throw http_server_error("metrics.listen '" + std::string(listen) + "': no IP address for '" +
                            host_text + "'");
  out.host = text;
  return out;
}

void poke(const std::string& host, bool ipv6, uint16_t port) {
  sockaddr_storage address{};
  socklen_t length = 0;
  if (ipv6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&address);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    if (host == "::" || inet_pton(AF_INET6, host.c_str(), &a->sin6_addr) != 1)
      a->sin6_addr = in6addr_loopback;
    length = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&address);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    if (host == "0.0.0.0" || inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1)
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof *a;
  }
  const int fd = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  connect(fd, reinterpret_cast<const sockaddr*>(&address), length);
  close(fd);
}

bool is_loopback(const std::string& host, bool ipv6) {
  if (!ipv6) return host.rfind("127.", 0) == 0;
  return host == "::1" || host.rfind("::ffff:127.", 0) == 0;
}

}  // namespace sluice
