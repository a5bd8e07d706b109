#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

// Where the HTTP server listens (metrics.listen), resolved to one numeric address.
struct bind_address {
  std::string host;  // numeric
  std::string port;
  bool ipv6 = false;
  std::string civetweb() const { return ipv6 ? "[" + host + "]:" + port : host + ":" + port; }
};

// "host:port", "[v6]:port", ":port" or "port"; a missing host is the loopback. The first IPv4
// address the host resolves to, else the first IPv6 one. Throws http_server_error.
bind_address resolve(std::string_view listen);

// Opens and closes one connection to the listener (a wildcard address through the loopback):
// wakes civetweb's accept loop on stop.
void poke(const std::string& host, bool ipv6, uint16_t port);

// 127.0.0.0/8, ::1 and ::ffff:127.x (numeric, as resolve() gives them); not a wildcard.
bool is_loopback(const std::string& host, bool ipv6);

}  // namespace sluice
