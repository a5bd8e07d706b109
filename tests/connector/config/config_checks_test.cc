#include "connector/config/config_checks.h"

#include <doctest/doctest.h>

#include <string_view>

#include "schemas/common/source_zone.h"

namespace sluice {

TEST_CASE("source.timezone: the config check accepts exactly what the decoders parse") {
  // Lower-case utc was parsed by the decoders but refused by the check; "+05:" and +19:00
  // the other way round.
  for (std::string_view zone : {"UTC",
                                "utc",
                                "Z",
                                "GMT",
                                "Etc/UTC",
                                "+02:00",
                                "-05:30",
                                "+0545",
                                "+18:00",
                                "-18",
                                "+19:00",
                                "+23:59",
                                "+05:",
                                "+5",
                                "",
                                "-",
                                "Europe/Paris",
                                "Etc/GMT+3",
                                "Europe/Pariss",
                                "america/new_york",
                                "Atlantis/Capital"}) {
    CAPTURE(zone);
    const bool checked = check_timezone("", zone).empty();
    CHECK(checked == static_cast<bool>(parse_source_zone(zone)));
  }
  CHECK(check_timezone("", "utc").empty());
}

}  // namespace sluice
