#pragma once

#include <string>
#include <utility>
#include <variant>

namespace sluice {

// Bad input is expected and travels as a value, never as an exception (STYLE.md #6).
enum class error_code {
  invalid_json,
  wrong_type,
  missing_field,
  unknown_op,
  missing_key,
  bad_csn,
  too_large,
  too_deep,
  too_many_columns,
  nul_in_text,
  bad_identifier,
  crc_mismatch,
  unsupported,
  bad_timestamp,
  invalid_avro,  // an Avro object container or record that cannot be read
  field_rule,    // fields.* cannot apply: a key column excluded, two columns onto one name
};

const char* to_string(error_code code);

struct error {
  error_code code;
  std::string message;
};

template <typename T>
class result {
 public:
  result(T value) : _v(std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : _v(std::move(e)) {}      // NOLINT: implicit by design

  bool ok() const { return _v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(_v); }
  const T& value() const { return std::get<0>(_v); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const error& err() const { return std::get<1>(_v); }

 private:
  std::variant<T, error> _v;
};

inline error make_error(error_code code, std::string message) {
  return error{code, std::move(message)};
}

}  // namespace sluice
