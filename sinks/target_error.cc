#include "sinks/target_error.h"

namespace sluice {

const char* to_string(target_error_action action) {
  switch (action) {
    case target_error_action::retry:
      return "retry";
    case target_error_action::reconnect:
      return "reconnect";
    case target_error_action::in_doubt:
      return "in_doubt";
    case target_error_action::reject:
      return "reject";
    case target_error_action::refused:
      return "refused";
    case target_error_action::fatal:
      return "fatal";
  }
  return "unknown";
}

}  // namespace sluice
