#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {

std::string quote_identifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out.push_back('"');
  for (char c : name) {
    out.push_back(c);
    if (c == '"') out.push_back('"');
  }
  out.push_back('"');
  return out;
}

routing_options pg_routing(routing_options routing) {
  routing.max_identifier_bytes = pg_max_identifier_bytes;
  return routing;
}

}  // namespace sluice
