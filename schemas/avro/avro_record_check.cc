#include "schemas/avro/avro_record_check.h"

#include <cstdint>
#include <string>

namespace sluice {
namespace {

class record_check {
 public:
  record_check(std::string_view bytes, size_t max_depth) : _in(bytes), _max(max_depth) {}

  std::optional<error> value(const avro_node& n, size_t depth) {
    if (depth > _max) return make_error(error_code::too_deep, "record nested too deep");
    switch (n.kind) {
      case avro_kind::null:
        return std::nullopt;
      case avro_kind::boolean:
        return skip(1, "boolean");
      case avro_kind::int32:
      case avro_kind::int64: {
        int64_t v = 0;
        if (!read_long(v)) return bad("number cut short or too long");
        if (n.kind == avro_kind::int32 && (v < INT32_MIN || v > INT32_MAX)) {
          return bad("int out of range");
        }
        return std::nullopt;
      }
      case avro_kind::float32:
        return skip(4, "float");
      case avro_kind::float64:
        return skip(8, "double");
      case avro_kind::bytes:
      case avro_kind::string: {
        int64_t len = 0;
        if (!read_long(len) || len < 0) return bad("length cut short or negative");
        return skip(static_cast<uint64_t>(len), "string or bytes");
      }
      case avro_kind::fixed:
        return skip(static_cast<uint64_t>(n.size), "fixed");
      case avro_kind::enumeration: {
        int64_t i = 0;
        if (!read_long(i) || i < 0 || static_cast<uint64_t>(i) >= n.symbols.size()) {
          return bad("enum index out of range");
        }
        return std::nullopt;
      }
      case avro_kind::union_of: {
        int64_t i = 0;
        if (!read_long(i) || i < 0 || static_cast<uint64_t>(i) >= n.branches.size()) {
          return bad("union branch out of range");
        }
        return value(*n.branches[static_cast<size_t>(i)], depth + 1);
      }
      case avro_kind::record:
        for (const avro_node::field& f : n.fields) {
          if (auto err = value(*f.type, depth + 1)) return err;
        }
        return std::nullopt;
      case avro_kind::array:
      case avro_kind::map:
        return items(n, depth);
    }
    return bad("unknown type");
  }

  size_t consumed(std::string_view whole) const { return whole.size() - _in.size(); }

 private:
  static error bad(std::string what) {
    return make_error(error_code::invalid_avro, std::move(what));
  }

  std::optional<error> skip(uint64_t n, const char* what) {
    if (n > _in.size()) return bad(std::string(what) + " runs past its block");
    _in.remove_prefix(static_cast<size_t>(n));
    return std::nullopt;
  }

  bool read_long(int64_t& out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (_in.empty()) return false;
      const auto b = static_cast<uint8_t>(_in.front());
      _in.remove_prefix(1);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        out = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
        return true;
      }
    }
    return false;
  }

  std::optional<error> items(const avro_node& n, size_t depth) {
    for (;;) {
      int64_t count = 0;
      if (!read_long(count)) return bad("item count cut short");
      if (count == 0) return std::nullopt;
      if (count < 0) {
        int64_t size = 0;
        if (count == INT64_MIN || !read_long(size) || size < 0) return bad("bad item block");
        count = -count;
      }
      if (static_cast<uint64_t>(count) > _in.size()) return bad("more items than bytes");
      for (int64_t i = 0; i < count; ++i) {
        if (n.kind == avro_kind::map) {
          int64_t len = 0;
          if (!read_long(len) || len < 0) return bad("map key cut short");
          if (auto err = skip(static_cast<uint64_t>(len), "map key")) return err;
        }
        if (auto err = value(*n.items, depth + 1)) return err;
      }
    }
  }

  std::string_view _in;
  size_t _max;
};

}  // namespace

result<size_t> check_avro_record(std::string_view bytes, const avro_node& schema,
                                 size_t max_depth) {
  record_check check(bytes, max_depth);
  if (auto err = check.value(schema, 0)) return std::move(*err);
  return check.consumed(bytes);
}

}  // namespace sluice
