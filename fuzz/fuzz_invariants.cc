#include "fuzz/fuzz_invariants.h"

#include <algorithm>
#include <exception>
#include <set>

#include "fuzz/fuzz_targets.h"
#include "schemas/common/decode_budget.h"
#include "schemas/common/json_value_reader.h"

namespace sluice::fuzz {
namespace {

bool has_nul(std::string_view s) {
  return s.find('\0') != std::string_view::npos;
}

void check_name(const table_name& n, std::string_view what) {
  require(!has_nul(n.database) && !has_nul(n.schema) && !has_nul(n.table),
          std::string(what) + ": table name contains NUL");
}

void check_value(const value& v, std::string_view where) {
  const std::string w(where);
  switch (v.kind) {
    case value_kind::absent:
    case value_kind::null:
      require(v.text.empty(), w + ": null/absent value carries text");
      break;
    case value_kind::number:
      require(is_json_number(v.text), w + ": number value is not a JSON number: " + v.text);
      break;
    case value_kind::boolean:
      require(v.text == "true" || v.text == "false", w + ": boolean value is " + v.text);
      break;
    case value_kind::string:
      require(!has_nul(v.text), w + ": string value contains NUL");
      break;
    case value_kind::json: {
      // PostgreSQL's jsonb must read it: valid JSON (a scalar too: a Json column may hold one).
      require(!check_json_text(v.text, 1024), w + ": json value is not JSON: " + v.text);
      require(!has_nul(v.text), w + ": json value contains NUL");
      break;
    }
    case value_kind::bytes:
      break;  // any bytes
  }
}

void check_key(const row_key& k, std::string_view what) {
  const std::string w(what);
  require(k.columns.size() == k.values.size(), w + ": key columns and values differ in count");
  require(k.empty() == k.canonical.empty(), w + ": canonical bytes disagree with the columns");
  std::set<std::string_view> names;
  for (size_t i = 0; i < k.columns.size(); ++i) {
    require(!has_nul(k.columns[i]), w + ": key column name contains NUL");
    require(names.insert(k.columns[i]).second, w + ": key column listed twice: " + k.columns[i]);
    const value& v = k.values[i];
    require(!v.is_absent() && !v.is_null(), w + ": key value null or absent: " + k.columns[i]);
    check_value(v, w + " value");
    if (v.kind == value_kind::number) {
      const auto canon = canonical_number(v.text);
      require(canon && *canon == v.text, w + ": key number not canonical: " + v.text);
    }
  }
}

void check_change(const change& c, const raw_message& msg, const decode_expectations& expect) {
  require(c.table != nullptr, "change without a table");
  check_name(c.table->name, "change");
  require(!c.seq.empty(), "change with an empty CSN");
  require(csn::from_bytes(c.seq.bytes()).ok(), "change CSN is not a valid encoding");
  check_key(c.key, "key");
  if (c.op == op_kind::truncate) {
    require(c.key.empty(), "a truncate carries a key");
  } else {
    if (!c.table->key_columns.empty()) require(!c.key.empty(), "change of a keyed table keyless");
    if (expect.always_keyed) require(!c.key.empty(), "keyless change where keys are required");
  }
  if (c.old_key) {
    require(!c.old_key->empty(), "key change with an empty old key");
    check_key(*c.old_key, "old key");
  }
  std::set<std::string_view> names;
  for (const column_value& cv : c.after) {
    require(!has_nul(cv.name), "image column name contains NUL");
    require(names.insert(cv.name).second, "image column listed twice: " + cv.name);
    check_value(cv.v, "image column " + cv.name);
    if (!c.partial) require(!cv.v.is_absent(), "absent value in a full image: " + cv.name);
  }
  require(!has_nul(c.source.tx), "transaction id contains NUL");
  require(c.source.origin.topic == msg.topic && c.source.origin.offset == msg.offset &&
              c.source.origin.partition == msg.partition,
          "change lost its Kafka origin");
}

void check_catalog_update(const catalog_update& u) {
  check_name(u.table, "catalog update");
  if (!u.seq.empty()) require(csn::from_bytes(u.seq.bytes()).ok(), "catalog update CSN invalid");
  std::set<std::string_view> names;
  for (const column_info& col : u.columns) {
    require(!has_nul(col.name), "catalog column name contains NUL");
    require(names.insert(col.name).second, "catalog column listed twice: " + col.name);
  }
  for (const std::string& k : u.key_columns) {
    require(u.columns.empty() || names.count(k) == 1,
            "catalog update key column not among its columns: " + k);
  }
}

void append_key(std::string& out, const row_key& k) {
  out += "key{";
  for (size_t i = 0; i < k.columns.size(); ++i) {
    out +=
        k.columns[i] + "=" + std::to_string(int(k.values[i].kind)) + ":" + k.values[i].text + ",";
  }
  out += "}" + k.canonical;
}

uint64_t units_of(const value& v, std::string_view name) {
  return decode_budget::value_units + name.size() + v.text.size();
}

uint64_t units_of(const row_key& k) {
  uint64_t n = k.canonical.size();
  for (size_t i = 0; i < k.columns.size(); ++i)
    n += units_of(k.values[i], k.columns[i]);
  return n;
}

uint64_t units_of(const table_name& t) {
  return t.database.size() + t.schema.size() + t.table.size();
}

std::optional<error> decode_once(decoder& d, const raw_message& msg, decode_output& out) {
  try {
    return d.decode(msg, out);
  } catch (const invariant_violation&) {
    throw;
  } catch (const std::exception& e) {
    throw invariant_violation(std::string("decode threw: ") + e.what());
  } catch (...) {
    throw invariant_violation("decode threw a non-standard exception");
  }
}

}  // namespace

void require(bool ok, std::string_view what) {
  if (!ok) throw invariant_violation(std::string(what));
}

uint64_t decoded_units(const decode_output& out) {
  constexpr uint64_t record = decode_budget::record_units;
  uint64_t n = 0;
  for (const change& c : out.changes) {
    n += record + units_of(c.key) + c.seq.bytes().size() + c.source.tx.size() +
         c.source.origin.topic.size();
    if (c.old_key) n += units_of(*c.old_key);
    for (const column_value& cv : c.after)
      n += units_of(cv.v, cv.name);
  }
  for (const catalog_update& u : out.catalog) {
    n += record + units_of(u.table) + u.learned_from.size() + u.seq.bytes().size();
    for (const column_info& col : u.columns)
      n += decode_budget::value_units + col.name.size() + col.source_type.size();
    for (const std::string& k : u.key_columns)
      n += decode_budget::value_units + k.size();
  }
  for (const ddl_record& r : out.ddl)
    n += record + units_of(r.table) + r.statement.size() + r.seq.bytes().size();
  for (const chunk_piece& p : out.pieces)
    n += record + p.chunk_id.size() + p.payload.size() + p.origin.topic.size();
  return n;
}

uint64_t decoded_bound(size_t input_bytes) {
  return output_slack * (decode_budget::units_per_byte * input_bytes + decode_budget::free_units);
}

size_t inflation_allowance(std::string_view message, size_t max_message_bytes) {
  const bool may_inflate = message.find("deflate") != std::string_view::npos ||
                           message.find("snappy") != std::string_view::npos;
  return may_inflate ? max_message_bytes : 0;
}

std::string describe(const decode_output& out) {
  std::string s;
  for (const change& c : out.changes) {
    s += "change ";
    s += to_string(c.op);
    s += " " + (c.table ? c.table->name.qualified() : std::string("?")) + " ";
    append_key(s, c.key);
    if (c.old_key) append_key(s, *c.old_key);
    for (const column_value& cv : c.after) {
      s += " " + cv.name + "=" + std::to_string(int(cv.v.kind)) + ":" + cv.v.text;
    }
    s += c.partial ? " partial " : " full ";
    s += c.seq.hex() + " " + c.source.tx + " " + std::to_string(c.source.source_ts.value()) + " " +
         std::to_string(int(c.source.read)) + "\n";
  }
  for (const catalog_update& u : out.catalog) {
    s += "catalog " + u.table.qualified() + " " + u.seq.hex() + " " + u.learned_from;
    for (const column_info& col : u.columns) {
      s += " " + col.name + ":" + col.source_type + ":" + std::to_string(int(col.cls)) +
           (col.nullable ? "n" : "") + (col.key ? "k" : "");
    }
    for (const std::string& k : u.key_columns)
      s += " key:" + k;
    s += "\n";
  }
  for (const ddl_record& r : out.ddl) {
    s += "ddl " + r.table.qualified() + " " + r.seq.hex() + " " + r.statement + " " +
         std::to_string(r.source_ts.value()) + "\n";
  }
  return s;
}

std::string describe(table_catalog& catalog) {
  std::string s;
  for (const table_entry* e : catalog.entries()) {
    s += e->name.qualified() + (e->key_configured ? " configured" : "");
    for (const std::string& k : e->key_columns)
      s += " key:" + k;
    for (const column_info& col : e->columns) {
      s += " " + col.name + ":" + col.source_type + ":" + std::to_string(int(col.cls)) +
           (col.nullable ? "n" : "") + (col.key ? "k" : "");
    }
    s += "\n";
  }
  return s;
}

void decode_and_check(decoder& d, table_catalog& catalog, const raw_message& msg,
                      const decode_expectations& expect) {
  decode_output out;
  const std::optional<error> err = decode_once(d, msg, out);
  // SPEC §8: a small message never decodes into a huge one (schemas/common/decode_budget.h).
  const size_t input = (msg.value ? msg.value->size() : 0) + (msg.key ? msg.key->size() : 0) +
                       expect.decompressed_allowance;
  const uint64_t units = decoded_units(out);
  require(units <= decoded_bound(input),
          "a message of " + std::to_string(input) + " bytes decoded into " + std::to_string(units) +
              " units, over the bound of " + std::to_string(decoded_bound(input)));
  if (err) {
    require(out.empty(), "decode returned an error and appended output");
  } else {
    for (const change& c : out.changes)
      check_change(c, msg, expect);
    for (const catalog_update& u : out.catalog)
      check_catalog_update(u);
    for (const ddl_record& r : out.ddl)
      check_name(r.table, "ddl record");
  }
  if (!expect.check_redelivery) return;

  const std::string first = describe(out);
  const std::string learned = describe(catalog);
  decode_output again;
  const std::optional<error> err_again = decode_once(d, msg, again);
  require(err.has_value() == err_again.has_value(), "a redelivered message decodes differently");
  if (err) {
    require(err->code == err_again->code, "a redelivered message fails differently");
  } else {
    require(describe(again) == first, "a redelivered message decodes to different output");
  }
  require(describe(catalog) == learned, "a redelivered message changed the catalog");
}

}  // namespace sluice::fuzz
