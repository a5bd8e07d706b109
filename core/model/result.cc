#include "core/model/result.h"

namespace sluice {

const char* to_string(error_code code) {
  switch (code) {
    case error_code::invalid_json:
      return "invalid_json";
    case error_code::wrong_type:
      return "wrong_type";
    case error_code::missing_field:
      return "missing_field";
    case error_code::unknown_op:
      return "unknown_op";
    case error_code::missing_key:
      return "missing_key";
    case error_code::bad_csn:
      return "bad_csn";
    case error_code::too_large:
      return "too_large";
    case error_code::too_deep:
      return "too_deep";
    case error_code::too_many_columns:
      return "too_many_columns";
    case error_code::nul_in_text:
      return "nul_in_text";
    case error_code::bad_identifier:
      return "bad_identifier";
    case error_code::crc_mismatch:
      return "crc_mismatch";
    case error_code::unsupported:
      return "unsupported";
    case error_code::bad_timestamp:
      return "bad_timestamp";
    case error_code::invalid_avro:
      return "invalid_avro";
    case error_code::field_rule:
      return "field_rule";
  }
  return "unknown";
}

}  // namespace sluice
