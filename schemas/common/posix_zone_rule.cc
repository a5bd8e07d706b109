#include "schemas/common/posix_zone_rule.h"

#include <date/ptz.h>

#include <algorithm>
#include <chrono>
#include <exception>

namespace sluice {
namespace {

class ptz_rule final : public posix_zone_rule {
 public:
  explicit ptz_rule(const std::string& rule) : _zone(rule) {}

  int32_t offset_at_local(int64_t local_seconds) const override {
    const date::local_seconds local{std::chrono::seconds{local_seconds}};
    const date::local_info info = _zone.get_info(local);
    if (info.result == date::local_info::unique) {
      return static_cast<int32_t>(info.first.offset.count());
    }
    return static_cast<int32_t>(std::min(info.first.offset, info.second.offset).count());
  }

 private:
  Posix::time_zone _zone;
};

}  // namespace

std::unique_ptr<const posix_zone_rule> posix_zone_rule::parse(const std::string& rule) {
  try {
    return std::make_unique<ptz_rule>(rule);
  } catch (const std::exception&) {
    return nullptr;  // Posix::time_zone throws std::runtime_error on a rule it cannot read
  }
}

}  // namespace sluice
