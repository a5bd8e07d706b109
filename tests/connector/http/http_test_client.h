#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice::testing {

struct http_response {
  int status = 0;
  std::string headers;  // the status line and header lines, as received
  std::string body;

  // The value of a header (case-sensitive name), or "" when absent.
  std::string header(std::string_view name) const {
    const std::string key = "\r\n" + std::string(name) + ": ";
    const size_t at = headers.find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size();
    return headers.substr(begin, headers.find("\r\n", begin) - begin);
  }
};

// A blocking HTTP/1.1 request to 127.0.0.1:port over a plain socket, "Connection: close",
// with `headers` ("Name: value\r\n" lines) added; throws when it cannot connect.
// `body` is sent with its Content-Length (a PATCH of offsets).
inline http_response http_request(uint16_t port, std::string_view method, std::string_view path,
                                  std::string_view headers = {}, std::string_view body = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  // Host: 127.0.0.1 unless `headers` gives one.
  const bool own_host = headers.starts_with("Host:") || headers.find("\nHost:") != headers.npos;
  std::string request = std::string(method) + " " + std::string(path) + " HTTP/1.1\r\n" +
                        (own_host ? "" : "Host: 127.0.0.1\r\n") + "Connection: close\r\n";
  if (!body.empty()) {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  } else if (method == "PUT" || method == "POST" || method == "PATCH" || method == "DELETE") {
    request += "Content-Length: 0\r\n";
  }
  request += headers;
  request += "\r\n";
  request += body;
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    raw.append(buf, static_cast<size_t>(n));
  ::close(fd);

  http_response r;
  const size_t end = raw.find("\r\n\r\n");
  r.headers = raw.substr(0, end == std::string::npos ? raw.size() : end + 2);
  if (end != std::string::npos) r.body = raw.substr(end + 4);
  if (raw.rfind("HTTP/1.", 0) == 0 && raw.size() > 12) r.status = std::stoi(raw.substr(9, 3));
  return r;
}

}  // namespace sluice::testing
