#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

// A pgjdbc connection URL (jdbc:postgresql://host[:port][,host2[:port]]/database?k=v&...) as
// a libpq URI with the same meaning (SPEC §6a: never a weaker TLS mode than the URL asks).
struct jdbc_dsn {
  std::string uri;  // postgresql://[user@]hosts/database?... ; empty when the URL is refused
  std::string error;
  // URL parameters libpq has no equivalent for, each with why: listed by the importer.
  std::vector<std::pair<std::string, std::string>> unmapped;
  std::string tls_note;  // how the URL's TLS settings were read ("ssl=true: verify-full")
  // currentSchema's first schema: where the peer's unqualified table names live (pgjdbc sets
  // the search_path); the importer qualifies the table name format with it. "" when not set.
  std::string current_schema;
};

// `user` goes into the URI (percent-encoded); the password never does: libpq reads PGPASSWORD.
jdbc_dsn jdbc_to_libpq(std::string_view url, std::string_view user);

}  // namespace sluice
