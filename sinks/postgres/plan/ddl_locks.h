#pragma once

#include <chrono>
#include <string>

#include <pqxx/transaction_base>

#include "core/catalog/table_router.h"

namespace sluice {

// What auto.create and auto.evolve's DDL needs to wait for a table's lock briefly and to say
// who held it (table_ddl.cc): postgres.ddl.lock.timeout and postgres.ddl.statement.timeout
// set for the DDL's transaction only, and the backends holding the table named.

// "2 s" or "1500 ms", for messages.
std::string seconds_text(std::chrono::milliseconds d);

// SET LOCAL of a timeout in milliseconds (0: none).
void set_local(pqxx::transaction_base& tx, const char* setting, std::chrono::milliseconds d);

// Who holds a lock on the table now, for a person to find them: pid, user, application, state
// and how long their transaction has been open, at most five, the oldest first; "" when none.
// Never their query text: an analyst's literals are not sluice's to print (and
// pg_stat_activity hides other roles' queries from an unprivileged role anyway).
std::string lock_holders(pqxx::transaction_base& tx, const target_table& t);

}  // namespace sluice
