#include "sinks/mariadb/session/mdb_dsn.h"

#include <charconv>
#include <stdexcept>

namespace sluice::mdb {

namespace {

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    // A % that starts no escape is kept as it is: a password substituted from ${ENV} reaches
    // the DSN without percent-encoding.
    unsigned v = 0;
    if (i + 2 >= s.size() ||
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr != s.data() + i + 3) {
      out += '%';
      continue;
    }
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

tls_mode parse_tls_mode(std::string_view v) {
  std::string u;
  for (char c : v)
    u += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : (c == '-' ? '_' : c);
  if (u == "DISABLED") return tls_mode::disabled;
  if (u == "PREFERRED") return tls_mode::preferred;
  if (u == "REQUIRED") return tls_mode::required;
  if (u == "VERIFY_CA") return tls_mode::verify_ca;
  if (u == "VERIFY_IDENTITY") return tls_mode::verify_identity;
  throw std::invalid_argument(
      "mariadb DSN: ssl-mode must be DISABLED, PREFERRED, REQUIRED, "
      "VERIFY_CA or VERIFY_IDENTITY, not '" +
      std::string(v) + "'");
}

}  // namespace

dsn parse_dsn(std::string_view text) {
  dsn d;
  std::string_view rest = text;
  if (rest.starts_with("mariadb://")) {
    rest.remove_prefix(10);
  } else if (rest.starts_with("mysql://")) {
    rest.remove_prefix(8);
  } else {
    throw std::invalid_argument("mariadb DSN: must start with mariadb:// (or mysql://)");
  }
  std::string_view query;
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view path;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const size_t colon = userinfo.find(':');
    d.user = percent_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) d.password = percent_decode(userinfo.substr(colon + 1));
  }
  std::string_view host = rest;
  if (host.starts_with('[')) {  // [::1]:3306
    const size_t close = host.find(']');
    if (close == std::string_view::npos)
      throw std::invalid_argument("mariadb DSN: an unclosed [ in the host");
    d.host = std::string(host.substr(1, close - 1));
    host = host.substr(close + 1);
  } else {
    const size_t colon = host.find(':');
    d.host = std::string(host.substr(0, colon));
    host = colon == std::string_view::npos ? std::string_view() : host.substr(colon);
  }
  if (host.starts_with(':')) {
    host.remove_prefix(1);
    unsigned port = 0;
    const auto [p, ec] = std::from_chars(host.data(), host.data() + host.size(), port);
    if (ec != std::errc() || p != host.data() + host.size() || port == 0 || port > 65535)
      throw std::invalid_argument("mariadb DSN: the port must be a number from 1 to 65535");
    d.port = static_cast<uint16_t>(port);
  } else if (!host.empty()) {
    throw std::invalid_argument("mariadb DSN: unexpected text after the host");
  }
  if (d.host.empty()) throw std::invalid_argument("mariadb DSN: no host");
  d.database = percent_decode(path);
  bool mode_given = false;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    const std::string value =
        eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
    if (key == "ssl-mode" || key == "sslmode" || key == "ssl_mode") {
      d.tls = parse_tls_mode(value);
      mode_given = true;
    } else if (key == "ssl-ca" || key == "sslrootcert") {
      d.ssl_ca = value;
    } else if (key == "ssl-cert") {
      d.ssl_cert = value;
    } else if (key == "ssl-key") {
      d.ssl_key = value;
    } else if (key == "connect-timeout" || key == "connect_timeout") {
      unsigned s = 0;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), s);
      if (ec != std::errc() || p != value.data() + value.size())
        throw std::invalid_argument("mariadb DSN: connect-timeout must be whole seconds");
      d.connect_timeout = std::chrono::seconds(s);
    } else {
      throw std::invalid_argument("mariadb DSN: unknown setting '" + std::string(key) +
                                  "' (ssl-mode, ssl-ca, ssl-cert, ssl-key, connect-timeout)");
    }
  }
  if (!mode_given && !d.ssl_ca.empty()) d.tls = tls_mode::verify_ca;
  if ((d.tls == tls_mode::verify_ca || d.tls == tls_mode::verify_identity) && d.ssl_ca.empty())
    throw std::invalid_argument("mariadb DSN: ssl-mode VERIFY_CA and VERIFY_IDENTITY need ssl-ca");
  return d;
}

std::string shown(const dsn& d) {
  std::string s = "mariadb://";
  if (!d.user.empty()) s += d.user + (d.password.empty() ? "@" : ":***@");
  s += d.host + ":" + std::to_string(d.port) + "/" + d.database;
  return s;
}

}  // namespace sluice::mdb
