#include "schemas/common/source_zone.h"

#include "schemas/common/posix_zone_rule.h"

#include <date/tz.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

namespace sluice {

struct source_zone::named_rules {
  const date::time_zone* zone = nullptr;  // owned by date's tzdb, which lives until exit
  // The zone's POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"), for local times from
  // `posix_from` on. libdate-tz 3.0.1 reads only the listed transitions of a tzdata file,
  // which end in 2037; the file's last line gives the rule for every later year.
  std::unique_ptr<const posix_zone_rule> posix;
  date::local_seconds posix_from = date::local_seconds::max();
};

namespace {

// Where Debian's tzdata puts the compiled zones; libdate-tz (built with USE_OS_TZDB) reads
// the same folder.
constexpr std::string_view zoneinfo_dir = "/usr/share/zoneinfo/";

// The POSIX TZ rule a version 2+ TZif file ends with ("\n<rule>\n"), or "".
std::string posix_rule_of(const std::string& zone_name) {
  std::ifstream in(std::string(zoneinfo_dir) + zone_name, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (bytes.size() < 6 || bytes.compare(0, 4, "TZif") != 0 || bytes[4] < '2' ||
      bytes.back() != '\n') {
    return "";
  }
  const size_t start = bytes.rfind('\n', bytes.size() - 2);
  if (start == std::string::npos) return "";
  return bytes.substr(start + 1, bytes.size() - start - 2);
}

// The first local day from which `rules.posix` is used: the year after the zone's last listed
// transition (the rule covers that year too; switching at a year boundary keeps clear of it).
void attach_posix_rule(source_zone::named_rules& rules) {
  const std::string rule = posix_rule_of(rules.zone->name());
  if (rule.empty()) return;
  rules.posix = posix_zone_rule::parse(rule);
  if (!rules.posix) return;  // a rule we cannot read: the listed transitions only
  using namespace std::chrono;
  const date::sys_info last =
      rules.zone->get_info(date::sys_days{date::year{9999} / date::January / 1});
  const date::year_month_day begin{floor<days>(last.begin)};
  rules.posix_from = date::local_days{(begin.year() + date::years{1}) / date::January / 1};
}

int32_t offset_of(const date::local_info& info) {
  if (info.result == date::local_info::unique) {
    return static_cast<int32_t>(info.first.offset.count());
  }
  // Ambiguous or skipped: the smaller offset, as PostgreSQL does (see source_zone.h).
  return static_cast<int32_t>(std::min(info.first.offset, info.second.offset).count());
}

}  // namespace

source_zone source_zone::fixed(int32_t seconds_east) {
  source_zone out;
  out._fixed_seconds = seconds_east;
  return out;
}

std::string_view source_zone::name() const {
  return _named ? std::string_view(_named->zone->name()) : std::string_view();
}

int32_t source_zone::named_offset_at_local(int64_t local_seconds) const {
  const date::local_seconds local{std::chrono::seconds{local_seconds}};
  if (_named->posix && local >= _named->posix_from) {
    return _named->posix->offset_at_local(local_seconds);
  }
  return offset_of(_named->zone->get_info(local));
}

result<source_zone> parse_source_zone(std::string_view text) {
  const zone_text kind = classify_zone_text(text);
  switch (kind.what) {
    case zone_text::kind::utc:
      return source_zone{};
    case zone_text::kind::offset:
      return source_zone::fixed(kind.seconds_east);
    case zone_text::kind::invalid:
      return make_error(error_code::wrong_type,
                        "time zone \"" + std::string(text) +
                            "\": expected UTC, an offset such as +02:00 (at most 18:00 from "
                            "UTC) or an IANA zone name");
    case zone_text::kind::name:
      break;
  }
  auto rules = std::make_shared<source_zone::named_rules>();
  try {
    rules->zone = date::locate_zone(text);
    attach_posix_rule(*rules);
    rules->zone->get_info(date::sys_seconds{});  // loads the zone's file now, not per message
  } catch (const std::exception& e) {
    // locate_zone throws for a name not in the database, and when there is no database.
    return make_error(error_code::unsupported, "time zone \"" + std::string(text) +
                                                   "\": not in the time zone database (" +
                                                   e.what() + ")");
  }
  source_zone out;
  out._named = std::move(rules);
  return out;
}

}  // namespace sluice
