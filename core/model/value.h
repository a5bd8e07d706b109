#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// What a column holds in one image (SPEC §2).
enum class value_kind : uint8_t {
  absent,   // not in a partial image: keep the stored value
  null,     // SQL NULL
  number,   // a JSON number, text kept exactly as the source wrote it
  string,   // UTF-8 text, JSON escapes already resolved
  boolean,  // text is "true" or "false"
  json,     // an object or array, raw JSON text
  bytes,    // binary: text holds the bytes themselves (decoded once from base64 or Avro)
};

struct value {
  value_kind kind = value_kind::absent;
  std::string text;

  static value absent() { return {}; }
  static value null() { return {value_kind::null, {}}; }
  static value number(std::string_view t) { return {value_kind::number, std::string(t)}; }
  static value string(std::string_view t) { return {value_kind::string, std::string(t)}; }
  static value boolean(bool b) { return {value_kind::boolean, b ? "true" : "false"}; }
  static value json(std::string_view t) { return {value_kind::json, std::string(t)}; }
  static value bytes(std::string_view b) { return {value_kind::bytes, std::string(b)}; }

  bool is_absent() const { return kind == value_kind::absent; }
  bool is_null() const { return kind == value_kind::null; }
  friend bool operator==(const value&, const value&) = default;
};

struct column_value {
  std::string name;
  value v;
  friend bool operator==(const column_value&, const column_value&) = default;
};

// A row image: columns in the order the source gave them. Absent columns are simply not
// listed (or listed with value_kind::absent by decoders that learn absence late).
using image = std::vector<column_value>;

// Writes an image in place over the columns it held before, reusing their strings' capacity
// (decode_output::recycled_image()); finish() drops the columns that were not overwritten.
// Lifecycle: one per image being written; the image must not be touched meanwhile.
class image_writer {
 public:
  explicit image_writer(image& img) : _img(img) {}
  // The next column, with its old name and value still in place: assign both.
  column_value& next() {
    if (_size == _img.size()) _img.emplace_back();
    return _img[_size++];
  }
  void add(std::string_view name, value_kind kind, std::string_view text) {
    column_value& c = next();
    c.name.assign(name);
    c.v.kind = kind;
    c.v.text.assign(text);
  }
  size_t size() const { return _size; }
  void finish() { _img.resize(_size); }

 private:
  image& _img;
  size_t _size = 0;
};

// The canonical text of a decimal number: no sign on zero, no leading zeros, no trailing
// fractional zeros, no exponent ("1.0" -> "1", "-0.00" -> "0", "1.5e2" -> "150",
// "007" -> "7"). Returns nothing when the text is not a decimal number. Exponents whose
// expansion would exceed max_digits are refused (nothing) rather than expanded.
std::optional<std::string> canonical_number(std::string_view text, size_t max_digits = 1024);
// The number of digits before the point in canonical_number(text) ("0" and "0.5" have none),
// without building that text: nothing exactly when canonical_number gives nothing.
std::optional<size_t> canonical_integer_digits(std::string_view text, size_t max_digits = 1024);

}  // namespace sluice
