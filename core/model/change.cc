#include "core/model/change.h"

namespace sluice {

const char* to_string(op_kind op) {
  switch (op) {
    case op_kind::upsert:
      return "upsert";
    case op_kind::remove:
      return "delete";
    case op_kind::truncate:
      return "truncate";
  }
  return "unknown";
}

}  // namespace sluice
