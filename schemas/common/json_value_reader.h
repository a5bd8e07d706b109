#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "core/model/value.h"

namespace sluice {

enum class json_kind : uint8_t { null, boolean, number, string, object, array };

// The value kind a JSON token becomes (objects and arrays: value_kind::json).
value_kind value_kind_of(json_kind kind);
// Overwrites `out` with the token as a value, reusing its text's capacity.
void assign_value(value& out, value_kind kind, std::string_view text);

// One JSON value as read from a document. Its text points into the document or into the
// parser's string buffer: valid until that parser parses another document (STYLE.md #8).
struct json_token {
  json_kind kind = json_kind::null;
  // number: the exact source text ("1e400" stays "1e400"); string: escapes resolved;
  // boolean: "true"/"false"; null: empty; object/array: the raw JSON text, trimmed.
  std::string_view text;

  bool is_scalar() const { return kind != json_kind::object && kind != json_kind::array; }
};

// The token as a value (objects and arrays: value_kind::json).
value to_value(const json_token& token);

// A scalar met inside an object or array, with the name of the member that held it (empty
// for array elements). read() can list them depth-first, in document order.
struct json_leaf {
  std::string_view name;
  json_token token;
};

// Reads simdjson On-Demand values exactly and validates all it passes over. On-Demand checks
// only what is read, so skipping a value (even one not needed) would let invalid JSON through:
// this reader walks every value, checks each number against the JSON grammar, resolves every
// string (and refuses \u0000, which PostgreSQL cannot store) and bounds the nesting depth.
// Numbers are never converted to double.
//
// Lifecycle: one per decoder instance; holds only its limit. Threading: as its decoder.
class json_value_reader {
 public:
  // max_depth: the deepest object/array nesting a value read may have (a scalar is 0,
  // `[]` is 1, `[[]]` is 2).
  explicit json_value_reader(size_t max_depth) : _max_depth(max_depth) {}

  // The document the next values come from, so that errors can say at which byte they are.
  // Also looks once through its bytes for what could become \u0000 in a string (a NUL byte,
  // or a backslash followed by "u0000"): when there is none, no string needs its own check.
  void begin_document(std::string_view document);
  // A document that is a message with `elided_bytes` left out at `elided_at` (a schema block
  // known by its bytes): error offsets past that point count them, so they name the
  // message's byte.
  void begin_document(std::string_view document, size_t elided_at, size_t elided_bytes);
  // The message's byte offset of a location in the current document, if it is in it.
  std::optional<size_t> offset_of(const char* location) const;

  // True when text (a string or name read from the current document) contains \u0000.
  bool has_nul(std::string_view text) const {
    return _nul_possible && std::memchr(text.data(), '\0', text.size()) != nullptr;
  }

  // Values are taken by reference: a simdjson value is 24 bytes, passed on the stack by
  // value, and copying it right after simdjson wrote it field by field stalls the load (a
  // store-forwarding failure), which showed as the hottest spots of the decode loop. The
  // rvalue overloads are for temporaries. For the same reason the readers use each object
  // member in place (error(), then value_unsafe()) rather than get() it into a copy.

  // Reads and validates one value. With leaves, also lists the scalars inside an object or
  // array. Errors do not name the value: callers add where it was.
  result<json_token> read(simdjson::ondemand::value& v, std::vector<json_leaf>* leaves = nullptr);
  result<json_token> read(simdjson::ondemand::value&& v, std::vector<json_leaf>* leaves = nullptr) {
    return read(v, leaves);
  }
  // The same into out (no result wrapper); out is unspecified after an error.
  std::optional<error> read(simdjson::ondemand::value& v, json_token& out,
                            std::vector<json_leaf>* leaves = nullptr);
  std::optional<error> read(simdjson::ondemand::value&& v, json_token& out,
                            std::vector<json_leaf>* leaves = nullptr) {
    return read(v, out, leaves);
  }
  // Reads one column value as a sluice::value (objects and arrays become value_kind::json).
  result<value> read_value(simdjson::ondemand::value& v);
  result<value> read_value(simdjson::ondemand::value&& v) { return read_value(v); }
  // The same into an existing value, reusing its text's capacity.
  std::optional<error> read_value(simdjson::ondemand::value& v, value& out);
  std::optional<error> read_value(simdjson::ondemand::value&& v, value& out) {
    return read_value(v, out);
  }
  // Validates a value that is not needed.
  std::optional<error> skip(simdjson::ondemand::value& v);
  std::optional<error> skip(simdjson::ondemand::value&& v) { return skip(v); }

  size_t max_depth() const { return _max_depth; }

  // An invalid_json error for a failure met at v (or at the document's current position),
  // naming the byte offset in the document given to begin_document().
  error fail(simdjson::error_code code, simdjson::ondemand::value& v) const;
  error fail(simdjson::error_code code, simdjson::ondemand::document& doc) const;

 private:
  // One scalar (kind is not object or array) into token.
  std::optional<error> scalar(simdjson::ondemand::value& v, json_kind kind, json_token& token);
  // An object or array (depth: its own nesting level, 1 for a top value), its scalars listed
  // into leaves when given; with out, its raw text.
  std::optional<error> container(simdjson::ondemand::value& v, json_kind kind, size_t depth,
                                 std::vector<json_leaf>* leaves, json_token* out);
  std::optional<error> child(simdjson::ondemand::value& v, size_t depth, std::string_view name,
                             std::vector<json_leaf>* leaves);

  size_t _max_depth;
  std::string_view _document;
  size_t _elided_at = 0, _elided_bytes = 0;
  bool _nul_possible = true;  // until begin_document() has looked
};

// Whether text is exactly one JSON value (a scalar, object or array), validated as the
// reader validates documents: numbers by the grammar, never converted (so 1e400 and
// 18446744073709551616 pass, as PostgreSQL's jsonb takes them), no \u0000 in strings (which
// jsonb refuses), nested at most max_depth. For JSON carried inside a string (Debezium's
// io.debezium.data.Json, Datastream's json), written into jsonb as it is. Allocates a padded
// copy of text.
std::optional<error> check_json_text(std::string_view text, size_t max_depth);

// True when text is a JSON number (RFC 8259 grammar, no surrounding whitespace).
bool is_json_number(std::string_view text);

// An invalid_json error for a simdjson failure, naming the byte offset when one is known.
error json_error(simdjson::error_code code, std::optional<size_t> at = std::nullopt);

// The same error with where it happened in front of its message ("payload column \"id\": ...").
error in_context(std::string_view where, error e);

// Removes the whitespace raw_json_token() and raw JSON slices keep after a value.
std::string_view trim_json_whitespace(std::string_view text);

}  // namespace sluice
