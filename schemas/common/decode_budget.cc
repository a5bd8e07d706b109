#include "schemas/common/decode_budget.h"

#include <string>

namespace sluice {

error decode_budget::exceeded() const {
  const bool capped = _allowed < free_units + units_per_byte * _input;
  return make_error(
      error_code::too_large,
      "decoded output exceeds the decoded-output bound of " +
          (capped ? std::to_string(_allowed) + " units (" + std::to_string(cap_per_message_byte) +
                        " × the message limit)"
                  : std::to_string(units_per_byte) + " units a byte of " + std::to_string(_input) +
                        " bytes of input + " + std::to_string(free_units)) +
          ": a small message may not decode into a huge one");
}

}  // namespace sluice
