#include "core/model/batch_records.h"

namespace sluice {

const char* to_string(dead_letter_kind kind) {
  switch (kind) {
    case dead_letter_kind::decode:
      return "decode";
    case dead_letter_kind::routing:
      return "routing";
    case dead_letter_kind::rejected:
      return "rejected";
    case dead_letter_kind::ddl_failed:
      return "ddl_failed";
    case dead_letter_kind::keyless:
      return "keyless";
    case dead_letter_kind::chunk:
      return "chunk";
  }
  return "unknown";
}

}  // namespace sluice
