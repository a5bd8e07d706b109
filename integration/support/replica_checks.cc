#include "integration/support/replica_checks.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "integration/support/services.h"

namespace sluice::testing {

std::string str(const std::optional<std::string>& v) {
  return v.value_or("<null>");
}

int64_t committed_messages(const std::string& connector) {
  auto rows = query("SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE connector = '" +
                    connector + "'");
  return std::stoll(str(rows.at(0).at(0)));
}

bool caught_up(const std::string& connector, int64_t total, std::chrono::seconds timeout) {
  return wait_until(
      [&] {
        return !query(
                    "SELECT 1 FROM pg_tables WHERE schemaname = 'sluice' AND "
                    "tablename = 'offsets'")
                    .empty() &&
               committed_messages(connector) >= total;
      },
      timeout);
}

int64_t dead_letter_count(const std::string& topic) {
  return std::stoll(
      str(query("SELECT count(*) FROM sluice.dead_letters WHERE topic = '" + topic + "'")[0][0]));
}

std::string dead_letter_reasons(const std::string& topic) {
  std::string out;
  for (const auto& r :
       query("SELECT reason FROM sluice.dead_letters WHERE topic = '" + topic + "'"))
    out += str(r[0]) + "\n";
  return out;
}

std::map<std::string, std::string> column_types(const std::string& schema,
                                                const std::string& table) {
  std::map<std::string, std::string> out;
  for (const auto& r : query("SELECT a.attname, format_type(a.atttypid, a.atttypmod) "
                             "FROM pg_attribute a WHERE a.attrelid = '\"" +
                             schema + "\".\"" + table +
                             "\"'::regclass AND a.attnum > 0 AND NOT a.attisdropped "
                             "AND a.attname NOT LIKE '\\_sluice\\_%'")) {
    out[str(r[0])] = str(r[1]);
  }
  return out;
}

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace sluice::testing
