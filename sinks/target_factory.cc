#include "sinks/target_factory.h"

#include <stdexcept>

#include "sinks/mariadb/mdb_target.h"
#include "sinks/postgres/pg_target.h"

namespace sluice {

std::unique_ptr<sink::target> make_target(target_kind kind, session_options settings) {
  switch (kind) {
    case target_kind::postgres:
      return std::make_unique<pg_target>(std::move(settings));
    case target_kind::mariadb:
      return std::make_unique<mdb::mdb_target>(std::move(settings));
  }
  throw std::invalid_argument("unknown target kind");
}

}  // namespace sluice
