#include "schemas/goldengate/goldengate_names.h"
#include "schemas/common/same_text.h"

#include <algorithm>
#include <stdexcept>

namespace sluice {
namespace {

constexpr std::array<std::string_view, goldengate_field_count> field_names = {
    "qual_table", "op_type", "op_ts", "xid", "pos", "csn", "op_seq", "before", "after"};
constexpr std::array<std::string_view, goldengate_op_count> op_names = {"INSERT", "UPDATE",
                                                                        "DELETE", "UPSERT"};
// Members whose names are part of the record's structure, not of its configurable fields.
constexpr std::array<std::string_view, 3> structural_members = {"columns", "ddl", "primary_keys"};
// op_type values of the record kinds that are not DML.
constexpr std::array<std::string_view, 3> fixed_ops = {"STREAM_METADATA", "OBJECT_METADATA", "DDL"};

template <size_t N>
std::string one_of(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

template <size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Fills out[i] with the name configured for names[i], else names[i] itself; checks them.
template <size_t N>
std::optional<error> resolve(const goldengate_names::name_map& configured,
                             const std::array<std::string_view, N>& names, std::string_view what,
                             std::array<std::string, N>& out) {
  for (const auto& [canonical, sent] : configured) {
    if (!contains(names, canonical)) {
      return make_error(error_code::unsupported, "unknown GoldenGate " + std::string(what) + " \"" +
                                                     canonical + "\" (one of " + one_of(names) +
                                                     ")");
    }
    if (sent.empty()) {
      return make_error(error_code::unsupported, "GoldenGate " + std::string(what) + " \"" +
                                                     canonical + "\" is renamed to nothing");
    }
  }
  for (size_t i = 0; i < N; ++i) {
    auto it = configured.find(std::string(names[i]));
    out[i] = it == configured.end() ? std::string(names[i]) : it->second;
  }
  for (size_t i = 0; i < N; ++i) {
    for (size_t j = i + 1; j < N; ++j) {
      if (out[i] == out[j]) {
        return make_error(error_code::unsupported, "GoldenGate " + std::string(what) + "s " +
                                                       std::string(names[i]) + " and " +
                                                       std::string(names[j]) +
                                                       " are both sent as \"" + out[i] + "\"");
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view canonical_name(goldengate_field field) {
  return field_names[static_cast<size_t>(field)];
}

std::string_view canonical_name(goldengate_op op) {
  return op_names[static_cast<size_t>(op)];
}

std::optional<error> goldengate_names::check(const name_map& fields, const name_map& ops) {
  std::array<std::string, goldengate_field_count> resolved_fields;
  std::array<std::string, goldengate_op_count> resolved_ops;
  if (auto err = resolve(fields, field_names, "field", resolved_fields)) return err;
  if (auto err = resolve(ops, op_names, "op", resolved_ops)) return err;
  for (const std::string& f : resolved_fields) {
    if (contains(structural_members, f)) {
      return make_error(error_code::unsupported, "a GoldenGate field may not be renamed to \"" + f +
                                                     "\" (one of " + one_of(structural_members) +
                                                     ", which sluice reads by shape)");
    }
  }
  for (const std::string& op : resolved_ops) {
    if (contains(fixed_ops, op)) {
      return make_error(error_code::unsupported, "a GoldenGate DML op may not be sent as \"" + op +
                                                     "\" (the op_type of another record kind)");
    }
  }
  return std::nullopt;
}

goldengate_names::goldengate_names(const name_map& fields, const name_map& ops) {
  if (auto err = check(fields, ops)) throw std::invalid_argument(err->message);
  (void)resolve(fields, field_names, "field", _fields);
  (void)resolve(ops, op_names, "op", _ops);
  static_assert(goldengate_field_count <= 16);
  for (size_t i = 0; i < _fields.size(); ++i)
    _fields_by_length[_fields[i].size() % 32] |= static_cast<uint16_t>(1u << i);
}

std::optional<goldengate_field> goldengate_names::field(std::string_view sent) const {
  for (unsigned bits = _fields_by_length[sent.size() % 32]; bits != 0; bits &= bits - 1) {
    const auto i = static_cast<size_t>(__builtin_ctz(bits));
    if (same_text(_fields[i], sent)) return static_cast<goldengate_field>(i);
  }
  return std::nullopt;
}

std::optional<goldengate_op> goldengate_names::op(std::string_view sent) const {
  for (size_t i = 0; i < _ops.size(); ++i) {
    if (same_text(_ops[i], sent)) return static_cast<goldengate_op>(i);
  }
  return std::nullopt;
}

std::string goldengate_names::label(goldengate_field field) const {
  const std::string_view canonical = canonical_name(field);
  std::string out = "\"" + std::string(sent(field)) + "\"";
  if (sent(field) != canonical) out += " (" + std::string(canonical) + ")";
  return out;
}

}  // namespace sluice
