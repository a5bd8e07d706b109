#include "connector/config/import/jdbc_url.h"

#include <map>

namespace sluice {
namespace {

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string percent_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool valid_percent(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
    i += 2;
  }
  return true;
}

}  // namespace

jdbc_dsn jdbc_to_libpq(std::string_view url, std::string_view user) {
  jdbc_dsn out;
  constexpr std::string_view prefix = "jdbc:postgresql://";
  if (!url.starts_with(prefix)) {
    out.error = "not a PostgreSQL JDBC URL (jdbc:postgresql://...): sluice writes to PostgreSQL";
    return out;
  }
  std::string_view rest = url.substr(prefix.size());
  const size_t query_at = rest.find('?');
  const std::string_view query =
      query_at == std::string_view::npos ? "" : rest.substr(query_at + 1);
  rest = rest.substr(0, query_at);
  const size_t slash = rest.find('/');
  const std::string_view hosts = rest.substr(0, slash);
  const std::string_view database = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (!valid_percent(query) || !valid_percent(database)) {
    out.error = "a malformed percent-encoding in the URL";
    return out;
  }
  std::map<std::string, std::string> params;
  std::vector<std::string> order;
  for (size_t at = 0; at < query.size();) {
    size_t amp = query.find('&', at);
    if (amp == std::string_view::npos) amp = query.size();
    const std::string_view pair = query.substr(at, amp - at);
    at = amp + 1;
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key = percent_decode(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1));
    if (!params.contains(key)) order.push_back(key);
    params[key] = std::move(value);
  }

  // libpq parameters, in order.
  std::vector<std::pair<std::string, std::string>> libpq;
  // TLS: pgjdbc's ssl=true alone means verify-full (its documented default once ssl is on);
  // sslmode wins when given; NonValidatingFactory asks for encryption without verification.
  std::string sslmode;
  if (auto it = params.find("sslmode"); it != params.end()) {
    sslmode = it->second;
    out.tls_note = "sslmode=" + sslmode + " as the URL says";
  } else if (auto ssl = params.find("ssl"); ssl != params.end() && ssl->second != "false") {
    auto factory = params.find("sslfactory");
    if (factory != params.end() && factory->second.ends_with("NonValidatingFactory")) {
      sslmode = "require";
      out.tls_note = "ssl=true with NonValidatingFactory: encrypted, unverified (require)";
    } else {
      sslmode = "verify-full";
      out.tls_note = "ssl=true: pgjdbc verifies the certificate and host name (verify-full)";
    }
  } else {
    sslmode = "prefer";
    out.tls_note = "no TLS setting: pgjdbc's and libpq's default (prefer)";
  }
  libpq.emplace_back("sslmode", sslmode);
  for (const std::string& key : order) {
    const std::string& value = params[key];
    if (key == "ssl" || key == "sslmode" || key == "sslfactory") continue;
    if (key == "sslrootcert" || key == "sslcert" || key == "sslkey" || key == "sslcrl") {
      libpq.emplace_back(key, value);
    } else if (key == "ApplicationName") {
      libpq.emplace_back("application_name", value);
    } else if (key == "connectTimeout") {
      libpq.emplace_back("connect_timeout", value);
    } else if (key == "targetServerType" && (value == "primary" || value == "master")) {
      libpq.emplace_back("target_session_attrs", "read-write");
    } else if (key == "user") {
      if (user.empty()) user = value;  // kept alive by params
    } else if (key == "currentSchema") {
      out.current_schema = value.substr(0, value.find(','));
      if (value.find(',') != std::string::npos) {
        out.unmapped.emplace_back("connection.url currentSchema=" + value,
                                  "only its first schema, " + out.current_schema +
                                      ", is where sluice writes unqualified table names");
      }
    } else if (key == "password") {
      out.unmapped.emplace_back(
          "connection.url password",
          "a password in the URL is not copied: set PGPASSWORD, libpq reads it");
    } else {
      out.unmapped.emplace_back("connection.url " + key,
                                "a pgjdbc parameter with no libpq equivalent sluice sets");
    }
  }
  out.uri = "postgresql://";
  // A placeholder (${PGUSER}) stays as written: sluice substitutes it before libpq reads it.
  if (!user.empty()) {
    out.uri +=
        (user.find("${") != std::string_view::npos ? std::string(user) : percent_encode(user)) +
        "@";
  }
  out.uri += std::string(hosts) + "/" + std::string(database);
  char sep = '?';
  for (const auto& [k, v] : libpq) {
    out.uri += sep + k + "=" + percent_encode(v);
    sep = '&';
  }
  return out;
}

}  // namespace sluice
