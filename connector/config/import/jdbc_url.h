#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

// A JDBC connection URL as the DSN of the target it names, with the same meaning (SPEC §6a:
// never a weaker TLS mode than the URL asks): pgjdbc's (jdbc:postgresql://...) as a libpq URI,
// MariaDB's and MySQL's Connector/J (jdbc:mariadb://, jdbc:mysql://) as a mariadb.dsn.
struct jdbc_dsn {
  std::string uri;  // postgresql://[user@]hosts/database?... or mariadb://...; empty: refused
  std::string error;
  // URL parameters the DSN has no equivalent for, each with why: listed by the importer.
  std::vector<std::pair<std::string, std::string>> unmapped;
  std::string tls_note;  // how the URL's TLS settings were read ("ssl=true: verify-full")
  // currentSchema's first schema: where the peer's unqualified table names live (pgjdbc sets
  // the search_path); the importer qualifies the table name format with it. "" when not set.
  std::string current_schema;
};

// `user` goes into the URI (percent-encoded); the password never does: libpq reads PGPASSWORD.
jdbc_dsn jdbc_to_libpq(std::string_view url, std::string_view user);

// Whether a JDBC URL names MariaDB or MySQL (jdbc:mariadb://, jdbc:mysql://): a mariadb.dsn.
bool is_mariadb_jdbc_url(std::string_view url);

// A MariaDB Connector/J URL (jdbc:mariadb://host[:port][,host2...]/database?k=v&...) or a MySQL
// Connector/J one (jdbc:mysql://...) as a mariadb.dsn URI, mariadb://[user[:password]@]host
// [:port]/database?ssl-mode=... (never a weaker TLS mode than the URL asks). `user` and
// `password` go into the URI as given when they are placeholders (${NAME}), percent-encoded
// otherwise; the caller passes a placeholder for the password, never the password itself.
// current_schema is the URL's database: where the peer's unqualified table names live.
jdbc_dsn jdbc_to_mariadb(std::string_view url, std::string_view user, std::string_view password);

}  // namespace sluice
