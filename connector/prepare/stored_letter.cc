#include "connector/prepare/stored_letter.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <string>

#include "core/model/base64.h"

namespace sluice {
namespace {

namespace od = simdjson::ondemand;

error bad(const std::string& what) {
  return {error_code::invalid_json, "stored letter: " + what};
}

std::string_view trimmed(std::string_view raw) {
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  return raw;
}

bool from_hex(std::string_view hex, std::string& out) {
  if (hex.size() % 2) return false;
  out.clear();
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

result<csn> csn_from_hex(std::string_view hex) {
  std::string bytes;
  if (!from_hex(hex, bytes)) return bad("a CSN is not hex");
  if (bytes.empty()) return csn{};
  return csn::from_bytes(bytes);
}

// A JSON object's members as (name, raw JSON text) in order. On demand, not the DOM: the DOM
// refuses numbers beyond 64 bits, which letters hold exactly (decimal(38) keys and values).
using members = std::vector<std::pair<std::string, std::string>>;

// A value's JSON text as written (objects and arrays checked whole, scalars as their token).
std::optional<std::string_view> raw_json_of(od::value& v) {
  od::json_type type;
  if (v.type().get(type)) return std::nullopt;
  std::string_view raw;
  if (type == od::json_type::object) {
    od::object o;
    if (v.get_object().get(o) || o.raw_json().get(raw)) return std::nullopt;
  } else if (type == od::json_type::array) {
    od::array a;
    if (v.get_array().get(a) || a.raw_json().get(raw)) return std::nullopt;
  } else {
    raw = v.raw_json_token();
  }
  return raw;
}

result<members> members_of(std::string_view json, const char* what) {
  od::parser parser;
  const simdjson::padded_string padded(json);
  od::document doc;
  od::object o;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(o)) {
    return bad(std::string(what) + " is not a JSON object");
  }
  members out;
  for (auto member : o) {
    std::string_view name;
    od::value v;
    if (member.unescaped_key().get(name) || member.value().get(v)) {
      return bad(std::string(what) + " is not valid JSON");
    }
    auto raw = raw_json_of(v);
    if (!raw) return bad(std::string(what) + " is not valid JSON");
    out.emplace_back(std::string(name), std::string(trimmed(*raw)));
  }
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return bad(std::string(what) + " is followed by more");
  }
  return out;
}

result<std::string> string_of(std::string_view raw) {
  od::parser parser;
  const simdjson::padded_string padded(raw);
  od::document doc;
  std::string_view s;
  if (parser.iterate(padded).get(doc) || doc.get_string().get(s)) return bad("not a string");
  return std::string(s);
}

result<std::vector<std::string>> strings_of(std::string_view raw) {
  od::parser parser;
  const simdjson::padded_string padded(raw);
  od::document doc;
  od::array list;
  if (parser.iterate(padded).get(doc) || doc.get_array().get(list)) return bad("not an array");
  std::vector<std::string> out;
  for (auto e : list) {
    std::string_view s;
    if (e.get_string().get(s)) return bad("an array holds a non-string");
    out.emplace_back(s);
  }
  return out;
}

// One raw JSON value of an image or key as the value it was; `bytes` when the letter said so.
result<value> value_of(std::string_view raw, bool bytes) {
  if (raw.empty()) return bad("an empty value");
  switch (raw.front()) {
    case 'n':
      return value::null();
    case 't':
      return value::boolean(true);
    case 'f':
      return value::boolean(false);
    case '{':
    case '[':
      return value::json(raw);
    case '"': {
      auto s = string_of(raw);
      if (!s) return s.err();
      if (!bytes) return value::string(*s);
      std::string decoded;
      if (!decode_base64(*s, decoded)) return bad("a bytes value is not base64");
      return value::bytes(decoded);
    }
    default:
      return value::number(raw);  // exactly as the letter printed it
  }
}

result<std::vector<column_value>> image_of(std::string_view raw,
                                           const std::vector<std::string>& bytes_columns) {
  auto m = members_of(raw, "an image");
  if (!m) return m.err();
  std::vector<column_value> out;
  for (auto& [name, text] : *m) {
    const bool bytes =
        std::find(bytes_columns.begin(), bytes_columns.end(), name) != bytes_columns.end();
    auto v = value_of(text, bytes);
    if (!v) return v.err();
    out.push_back({name, std::move(*v)});
  }
  return out;
}

result<std::vector<std::string>> objects_of(std::string_view raw) {
  od::parser parser;
  const simdjson::padded_string padded(raw);
  od::document doc;
  od::array list;
  if (parser.iterate(padded).get(doc) || doc.get_array().get(list)) return bad("not an array");
  std::vector<std::string> out;
  for (auto e : list) {
    od::object o;
    std::string_view text;
    if (e.get_object().get(o) || o.raw_json().get(text)) return bad("not an array of objects");
    out.emplace_back(trimmed(text));
  }
  return out;
}

// "name":"text" or "name_hex":"0a0b" (json_text.h's append_bytes_field); nullopt for null.
result<std::optional<std::string>> bytes_member(const members& m, const std::string& name) {
  for (const auto& [key, raw] : m) {
    if (key == name) {
      if (raw == "null") return std::optional<std::string>();
      auto s = string_of(raw);
      if (!s) return s.err();
      return std::optional<std::string>(std::move(*s));
    }
    if (key == name + "_hex") {
      auto s = string_of(raw);
      if (!s) return s.err();
      std::string bytes;
      if (!from_hex(*s, bytes)) return bad("a header is not hex");
      return std::optional<std::string>(std::move(bytes));
    }
  }
  return bad("a header has no " + name);
}

}  // namespace

result<stored_headers> read_stored_headers(std::string_view json) {
  auto list = objects_of(json);
  if (!list) return list.err();
  stored_headers out;
  for (const std::string& text : *list) {
    auto m = members_of(text, "a header");
    if (!m) return m.err();
    auto name = bytes_member(*m, "key");
    auto v = bytes_member(*m, "value");
    if (!name) return name.err();
    if (!v) return v.err();
    if (!*name) return bad("a header has a null name");
    out.emplace_back(std::move(**name), std::move(*v));
  }
  return out;
}

std::optional<error> read_stored_letter(std::string_view json, table_catalog& catalog,
                                        std::vector<change>& out) {
  auto root = members_of(json, "the letter");
  if (!root) return root.err();
  std::map<std::string, std::string, std::less<>> m(root->begin(), root->end());
  auto member = [&](std::string_view name) -> const std::string* {
    const auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
  };
  auto text = [&](std::string_view name) -> result<std::string> {
    const std::string* raw = member(name);
    if (!raw) return bad("no " + std::string(name));
    return string_of(*raw);
  };

  std::vector<std::string> bytes_columns;
  if (const std::string* raw = member("bytes_columns")) {
    auto names = strings_of(*raw);
    if (!names) return names.err();
    bytes_columns = std::move(*names);
  }
  const std::string* source = member("source");
  auto parts = source ? strings_of(*source) : result<std::vector<std::string>>(bad(""));
  if (!parts || parts->size() != 3 || (*parts)[2].empty()) {
    return bad("no source table (written by an older sluice: replay its topic instead)");
  }
  change base;
  base.table = catalog.intern(table_name{(*parts)[0], (*parts)[1], (*parts)[2]});
  if (const std::string* raw = member("types")) {
    auto typed = members_of(*raw, "types");
    if (!typed) return typed.err();
    auto built = std::make_shared<column_types>();
    for (auto& [name, spelled] : *typed) {
      auto s = string_of(spelled);
      if (!s) return s.err();
      // An unknown spelling leaves the column to be typed from its values.
      if (auto type = column_type::parse(*s)) built->columns.push_back({name, *type, {}});
    }
    base.types = std::move(built);
  }
  auto op = text("op");
  if (!op) return op.err();
  const std::string* image_raw = member("image");
  if (!image_raw) return bad("no image");
  auto img = image_of(*image_raw, bytes_columns);
  if (!img) return img.err();

  // A keyless change: {"op", "csn", "image"}.
  if (member("csn")) {
    auto hex = text("csn");
    if (!hex) return hex.err();
    auto seq = csn_from_hex(*hex);
    if (!seq) return seq.err();
    change c = std::move(base);
    if (*op == "upsert") {
      c.op = op_kind::upsert;
    } else if (*op == "delete") {
      c.op = op_kind::remove;
    } else {
      return bad("a keyless letter's op is " + *op);
    }
    c.seq = std::move(*seq);
    c.after = std::move(*img);
    // Its place in its message (a letter written before sluice kept it has none: appended
    // without a position rather than at a sibling's).
    c.source.origin.index = message_origin::no_index;
    if (const std::string* raw = member("index")) {
      uint32_t index = 0;
      const auto [end, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), index);
      if (ec != std::errc() || end != raw->data() + raw->size())
        return bad("a keyless letter's index is " + *raw);
      c.source.origin.index = index;
    }
    out.push_back(std::move(c));
    return std::nullopt;
  }

  // A merged row: its key, then a delete and the upserts it collapsed to.
  const std::string* key_raw = member("key");
  if (!key_raw) return bad("no key");
  auto key_values = image_of(*key_raw, bytes_columns);
  if (!key_values) return key_values.err();
  std::vector<std::string> key_columns;
  std::vector<value> values;
  for (column_value& cv : *key_values) {
    key_columns.push_back(std::move(cv.name));
    values.push_back(std::move(cv.v));
  }
  auto key = make_row_key(std::move(key_columns), std::move(values));
  if (!key) return key.err();
  base.key = std::move(*key);
  auto upsert_hex = text("upsert_csn");
  auto delete_hex = text("delete_csn");
  if (!upsert_hex) return upsert_hex.err();
  if (!delete_hex) return delete_hex.err();
  auto delete_seq = csn_from_hex(*delete_hex);
  if (!delete_seq) return delete_seq.err();
  const std::string* partial_raw = member("partial");
  const bool partial = partial_raw && *partial_raw == "true";
  std::map<std::string, std::string, std::less<>> column_csns;  // column -> hex
  if (const std::string* raw = member("column_csns")) {
    auto per = members_of(*raw, "column_csns");
    if (!per) return per.err();
    for (auto& [name, hex] : *per) {
      auto s = string_of(hex);
      if (!s) return s.err();
      column_csns.emplace(name, std::move(*s));
    }
  }

  if (!delete_seq->empty()) {
    change d = base;
    d.op = op_kind::remove;
    d.seq = std::move(*delete_seq);
    out.push_back(std::move(d));
  }
  if (*op != "upsert") return std::nullopt;
  // Columns at CSNs of their own: one partial upsert per CSN, each with its columns.
  std::map<std::string, image> by_csn;
  for (column_value& cv : *img) {
    const auto it = column_csns.find(cv.name);
    by_csn[it == column_csns.end() ? *upsert_hex : it->second].push_back(std::move(cv));
  }
  if (by_csn.empty()) by_csn[*upsert_hex];
  for (auto& [hex, columns] : by_csn) {
    auto seq = csn_from_hex(hex);
    if (!seq) return seq.err();
    if (seq->empty()) return bad("an upsert without a CSN");
    change u = base;
    u.op = op_kind::upsert;
    u.partial = partial || by_csn.size() > 1;
    u.seq = std::move(*seq);
    u.after = std::move(columns);
    out.push_back(std::move(u));
  }
  return std::nullopt;
}

}  // namespace sluice
