#include "schemas/common/decode_budget.h"

#include <string>

namespace sluice {

error decode_budget::exceeded() const {
  return make_error(
      error_code::too_large,
      "decoded output exceeds the decoded-output bound of " + std::to_string(units_per_byte) +
          " units a byte of " + std::to_string(_input) + " bytes (after decompression) + " +
          std::to_string(free_units) + " units: a small message may not decode into a huge one");
}

}  // namespace sluice
