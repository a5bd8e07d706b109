#include "core/model/zone_text.h"

#include <doctest/doctest.h>

#include <string_view>

namespace sluice {

TEST_CASE("a zone text is UTC, a bounded offset, a name to look up, or invalid") {
  for (std::string_view utc : {"UTC", "utc", "Z", "GMT", "Etc/UTC"}) {
    CAPTURE(utc);
    CHECK(classify_zone_text(utc).what == zone_text::kind::utc);
  }
  CHECK(classify_zone_text("+02:00").what == zone_text::kind::offset);
  CHECK(classify_zone_text("+02:00").seconds_east == 7200);
  CHECK(classify_zone_text("-0530").seconds_east == -19800);
  CHECK(classify_zone_text("+18:00").seconds_east == 18 * 3600);
  CHECK(classify_zone_text("-18").seconds_east == -18 * 3600);
  for (std::string_view bad : {"", "+19:00", "-18:01", "+23:59", "+05:", "+5", "+0a:00", "-"}) {
    CAPTURE(bad);
    CHECK(classify_zone_text(bad).what == zone_text::kind::invalid);
  }
  CHECK(classify_zone_text("Europe/Paris").what == zone_text::kind::name);
  CHECK(classify_zone_text("Mars/Olympus Mons").what == zone_text::kind::name);
}

TEST_CASE("an offset inside a timestamp may be up to 23:59, unlike a zone's") {
  CHECK(parse_offset_text("+23:59") == 23 * 3600 + 59 * 60);
  CHECK(parse_offset_text("-0100") == -3600);
  CHECK_FALSE(parse_offset_text("+24:00"));
  CHECK_FALSE(parse_offset_text("+05:"));
}

}  // namespace sluice
