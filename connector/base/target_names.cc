#include "connector/base/target_names.h"

namespace sluice {

target_kind target_of(const config& cfg) {
  return cfg.targets_mariadb() ? target_kind::mariadb : target_kind::postgres;
}

std::string_view target_id(target_kind kind) {
  return kind == target_kind::mariadb ? "mariadb" : "postgres";
}

std::string_view target_display_name(target_kind kind) {
  return kind == target_kind::mariadb ? "MariaDB" : "PostgreSQL";
}

}  // namespace sluice
