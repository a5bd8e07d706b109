#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace sluice {

// A value that cannot be confused with another of the same representation
// (STYLE.md #5, after Redpanda's named_type): a kafka_offset is not a partition_id.
template <typename T, typename Tag>
class named_type {
 public:
  using value_type = T;
  constexpr named_type() = default;
  constexpr explicit named_type(T v) : _value(v) {}
  constexpr T value() const { return _value; }
  constexpr auto operator<=>(const named_type&) const = default;

 private:
  T _value{};
};

using kafka_offset = named_type<int64_t, struct kafka_offset_tag>;
using partition_id = named_type<int32_t, struct partition_id_tag>;
using owner_epoch = named_type<int64_t, struct owner_epoch_tag>;
// Nanoseconds since the Unix epoch, UTC.
using timestamp_ns = named_type<int64_t, struct timestamp_ns_tag>;

}  // namespace sluice

template <typename T, typename Tag>
struct std::hash<sluice::named_type<T, Tag>> {
  size_t operator()(const sluice::named_type<T, Tag>& v) const noexcept {
    return std::hash<T>{}(v.value());
  }
};
