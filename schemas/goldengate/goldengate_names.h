#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/result.h"

namespace sluice {

// The record fields sluice reads by name, which GoldenGate lets users rename.
enum class goldengate_field : uint8_t {
  qual_table,
  op_type,
  op_ts,
  xid,
  pos,
  csn,
  op_seq,  // the operation's sequence within its transaction (optional metadata)
  before,
  after,
};
inline constexpr size_t goldengate_field_count = 9;

// DML operations; their strings are configurable too.
enum class goldengate_op : uint8_t { insert, update, remove, upsert };
inline constexpr size_t goldengate_op_count = 4;

std::string_view canonical_name(goldengate_field field);  // "qual_table"
std::string_view canonical_name(goldengate_op op);        // "INSERT", "DELETE" for remove

// The names a topic's records use for the fields and DML ops sluice reads (SPEC §3: "field
// names and op strings are configurable in GoldenGate, so they are configurable here"). The
// record kinds that are not DML keep their fixed op strings (STREAM_METADATA,
// OBJECT_METADATA, DDL), and so do the structural members `columns`, `ddl` and
// `primary_keys`.
//
// Lifecycle: built once per decoder from its options, then read-only. Threading: immutable.
class goldengate_names {
 public:
  using name_map = std::map<std::string, std::string>;

  // Throws std::invalid_argument for what check() reports.
  goldengate_names(const name_map& field_names, const name_map& op_names);
  // An unknown canonical name, an empty name, a name two fields (or two ops) share, a field
  // renamed to a structural member, or an op renamed to a fixed op string.
  static std::optional<error> check(const name_map& field_names, const name_map& op_names);

  std::optional<goldengate_field> field(std::string_view sent) const;
  std::string_view sent(goldengate_field field) const {
    return _fields[static_cast<size_t>(field)];
  }
  std::optional<goldengate_op> op(std::string_view sent) const;
  std::string_view sent_op(goldengate_op op) const { return _ops[static_cast<size_t>(op)]; }
  // For error messages: "\"after\"", or "\"new\" (after)" when renamed.
  std::string label(goldengate_field field) const;

 private:
  std::array<std::string, goldengate_field_count> _fields;
  std::array<std::string, goldengate_op_count> _ops;
  // By name length (mod 32): the fields whose sent name has it, one bit per field. field()
  // runs for every member of every record and compares only those (at most 3 by default).
  std::array<uint16_t, 32> _fields_by_length{};
};

}  // namespace sluice
