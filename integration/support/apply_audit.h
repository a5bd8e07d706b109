#pragma once

#include <string>
#include <vector>

namespace sluice::testing {

// Records every row version sluice proposes to replica tables, in the transaction that
// proposes it: a BEFORE INSERT trigger fires for each row of an INSERT … ON CONFLICT before
// the conflict is resolved, so a version the CSN guard then refuses is recorded too, and a
// rolled-back batch leaves nothing behind. Rows carry a unique `version` (or none, for
// insert-only tables), so a (table, id, version) proposed twice by committed transactions is a
// message applied twice — which the replica itself, idempotent by design, would never show.
//
// Lifecycle: construct once the tables exist (sluice creates them on their first message;
// what was applied before is not audited); the destructor drops the triggers. Threading: one.
class apply_audit {
 public:
  apply_audit(std::string name, std::vector<std::string> tables);
  ~apply_audit();
  apply_audit(const apply_audit&) = delete;
  apply_audit& operator=(const apply_audit&) = delete;

  // "table id version ×n" for each row version proposed more than once; empty when none was.
  std::vector<std::string> applied_twice() const;
  size_t proposals() const;

 private:
  std::string _name;
  std::vector<std::string> _tables;
};

}  // namespace sluice::testing
