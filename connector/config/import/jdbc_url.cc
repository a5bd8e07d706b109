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

// The query's parameters, decoded; `order`: their names as first given.
std::map<std::string, std::string> parse_query(std::string_view query,
                                               std::vector<std::string>& order) {
  std::map<std::string, std::string> params;
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
  return params;
}

// A user or password for a URI's user info: a placeholder (${NAME}) as written (sluice
// substitutes it before the URI is read), anything else percent-encoded.
std::string user_info_part(std::string_view s) {
  return s.find("${") != std::string_view::npos ? std::string(s) : percent_encode(s);
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// TLS of a MariaDB Connector/J URL as an ssl-mode: 3.x's sslMode (disable, trust, verify-ca,
// verify-full), else 2.x's useSsl with trustServerCertificate / disableSslHostnameVerification;
// none: Connector/J's default, no TLS.
std::string mariadb_ssl_mode(const std::map<std::string, std::string>& params, std::string& note) {
  const auto get = [&](const char* k) -> const std::string* {
    const auto it = params.find(k);
    return it == params.end() ? nullptr : &it->second;
  };
  if (const std::string* mode = get("sslMode")) {
    static const std::map<std::string, std::string> modes = {{"disable", "DISABLED"},
                                                             {"trust", "REQUIRED"},
                                                             {"verify-ca", "VERIFY_CA"},
                                                             {"verify-full", "VERIFY_IDENTITY"}};
    const auto it = modes.find(*mode);
    if (it == modes.end()) return "";
    note = "sslMode=" + *mode + ": " + it->second;
    return it->second;
  }
  const std::string* use = get("useSsl") != nullptr ? get("useSsl") : get("useSSL");
  if (use != nullptr && *use != "false") {
    if (const std::string* t = get("trustServerCertificate"); t != nullptr && *t == "true") {
      note = "useSsl=true with trustServerCertificate: encrypted, unverified (REQUIRED)";
      return "REQUIRED";
    }
    if (const std::string* h = get("disableSslHostnameVerification");
        h != nullptr && *h == "true") {
      note = "useSsl=true without host name verification (VERIFY_CA)";
      return "VERIFY_CA";
    }
    note = "useSsl=true: Connector/J verifies the certificate and host name (VERIFY_IDENTITY)";
    return "VERIFY_IDENTITY";
  }
  note = "no TLS setting: MariaDB Connector/J's default, no TLS (DISABLED)";
  return "DISABLED";
}

// TLS of a MySQL Connector/J URL as an ssl-mode: sslMode as it is, else the older useSSL with
// verifyServerCertificate; none: Connector/J's default, PREFERRED.
std::string mysql_ssl_mode(const std::map<std::string, std::string>& params, std::string& note) {
  if (const auto mode = params.find("sslMode"); mode != params.end()) {
    const std::string m = upper(mode->second);
    if (m != "DISABLED" && m != "PREFERRED" && m != "REQUIRED" && m != "VERIFY_CA" &&
        m != "VERIFY_IDENTITY")
      return "";
    note = "sslMode=" + mode->second + " as the URL says";
    return m;
  }
  if (const auto use = params.find("useSSL"); use != params.end()) {
    if (use->second == "false") {
      note = "useSSL=false: no TLS (DISABLED)";
      return "DISABLED";
    }
    const auto verify = params.find("verifyServerCertificate");
    if (verify != params.end() && verify->second == "true") {
      note = "useSSL=true with verifyServerCertificate: the certificate verified (VERIFY_CA)";
      return "VERIFY_CA";
    }
    note = "useSSL=true: encrypted, unverified (REQUIRED)";
    return "REQUIRED";
  }
  note = "no TLS setting: MySQL Connector/J's default (PREFERRED)";
  return "PREFERRED";
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
  std::vector<std::string> order;
  std::map<std::string, std::string> params = parse_query(query, order);

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
  if (!user.empty()) out.uri += user_info_part(user) + "@";
  out.uri += std::string(hosts) + "/" + std::string(database);
  char sep = '?';
  for (const auto& [k, v] : libpq) {
    out.uri += sep + k + "=" + percent_encode(v);
    sep = '&';
  }
  return out;
}

bool is_mariadb_jdbc_url(std::string_view url) {
  return url.starts_with("jdbc:mariadb://") || url.starts_with("jdbc:mysql://");
}

jdbc_dsn jdbc_to_mariadb(std::string_view url, std::string_view user, std::string_view password) {
  jdbc_dsn out;
  const bool mysql = url.starts_with("jdbc:mysql://");
  if (!is_mariadb_jdbc_url(url)) {
    out.error = "not a MariaDB or MySQL JDBC URL (jdbc:mariadb://..., jdbc:mysql://...)";
    return out;
  }
  std::string_view rest = url.substr(url.find("://") + 3);
  const size_t query_at = rest.find('?');
  const std::string_view query =
      query_at == std::string_view::npos ? "" : rest.substr(query_at + 1);
  rest = rest.substr(0, query_at);
  const size_t slash = rest.find('/');
  std::string_view hosts = rest.substr(0, slash);
  const std::string_view database = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (!valid_percent(query) || !valid_percent(database)) {
    out.error = "a malformed percent-encoding in the URL";
    return out;
  }
  if (hosts.empty() || hosts.find('(') != std::string_view::npos ||
      hosts.find('@') != std::string_view::npos) {
    out.error =
        "no host, or a host form sluice does not read (address=(...), user@host): "
        "give host[:port]";
    return out;
  }
  if (database.empty()) {
    out.error = "no database in the URL: nothing says where to write";
    return out;
  }
  if (const size_t comma = hosts.find(','); comma != std::string_view::npos) {
    out.unmapped.emplace_back(
        "connection.url hosts " + std::string(hosts),
        "sluice connects to one server: the first, " + std::string(hosts.substr(0, comma)));
    hosts = hosts.substr(0, comma);
  }
  std::vector<std::string> order;
  std::map<std::string, std::string> params = parse_query(query, order);
  const std::string mode =
      mysql ? mysql_ssl_mode(params, out.tls_note) : mariadb_ssl_mode(params, out.tls_note);
  if (mode.empty()) {
    out.error = "sslMode=" + params["sslMode"] + " is not a TLS mode Connector/J knows";
    return out;
  }
  std::vector<std::pair<std::string, std::string>> dsn_params = {{"ssl-mode", mode}};
  for (const std::string& key : order) {
    const std::string& value = params[key];
    if (key == "sslMode" || key == "useSsl" || key == "useSSL" || key == "trustServerCertificate" ||
        key == "disableSslHostnameVerification" || key == "verifyServerCertificate" ||
        key == "requireSSL") {
      continue;
    } else if (key == "serverSslCert" && !value.starts_with("-----") &&
               !value.starts_with("classpath:")) {
      dsn_params.emplace_back("ssl-ca", value);
    } else if (key == "user") {
      if (user.empty()) user = value;  // kept alive by params
    } else if (key == "password") {
      out.unmapped.emplace_back("connection.url password",
                                "a password in the URL is not copied: the DSN reads it from "
                                "the variable it names");
    } else if (key == "connectTimeout") {
      out.unmapped.emplace_back("connection.url connectTimeout=" + value,
                                "mariadb.connect.timeout (" + value + " ms)");
    } else if (key == "trustCertificateKeyStoreUrl" || key == "serverSslCert") {
      out.unmapped.emplace_back("connection.url " + key,
                                "a Java key store or an inline certificate: export the CA as a "
                                "PEM file and add ssl-ca=<file> to mariadb.dsn");
    } else {
      out.unmapped.emplace_back("connection.url " + key,
                                std::string("a ") + (mysql ? "MySQL" : "MariaDB") +
                                    " Connector/J parameter with no mariadb.dsn equivalent");
    }
  }
  out.current_schema = percent_decode(database);
  out.uri = "mariadb://";
  if (!user.empty()) {
    out.uri += user_info_part(user);
    if (!password.empty()) out.uri += ":" + user_info_part(password);
    out.uri += "@";
  }
  out.uri += std::string(hosts) + "/" + std::string(database);
  char sep = '?';
  for (const auto& [k, v] : dsn_params) {
    out.uri += sep + k + "=" + percent_encode(v);
    sep = '&';
  }
  return out;
}

}  // namespace sluice
