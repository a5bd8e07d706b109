// e2e_bench's Datastream topics, JSON and Avro (see e2e_workloads.h).
#include <avro.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <stdexcept>

#include "integration/bench/e2e_workloads.h"
#include "integration/support/avro_container_writer.h"
#include "integration/support/datastream_events.h"

namespace sluice::testing {
namespace {

// A fake calendar of 2026 from milliseconds: month from 28-day steps, day of the month; each
// field stays in range, so the text is a valid timestamp.
struct timestamp_parts {
  int month, day, hour, minute, second, millis;
};

timestamp_parts parts_of(int64_t ms_since_2026) {
  const int64_t s = ms_since_2026 / 1000;
  return {static_cast<int>(1 + (s / 2'419'200) % 12),
          static_cast<int>(1 + (s / 86400) % 28),
          static_cast<int>((s / 3600) % 24),
          static_cast<int>((s / 60) % 60),
          static_cast<int>(s % 60),
          static_cast<int>(ms_since_2026 % 1000)};
}

std::string timestamp_text(int64_t ms_since_2026) {
  const timestamp_parts p = parts_of(ms_since_2026);
  char buf[40];
  std::snprintf(buf, sizeof buf, "2026-%02d-%02dT%02d:%02d:%02d.%03dZ", p.month, p.day, p.hour,
                p.minute, p.second, p.millis);
  return buf;
}

// The same instant as timestamp_text's, in µs since the epoch (for timestamp-micros).
int64_t timestamp_micros(int64_t ms_since_2026) {
  const timestamp_parts p = parts_of(ms_since_2026);
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = p.month - 1;
  tm.tm_mday = p.day;
  tm.tm_hour = p.hour;
  tm.tm_min = p.minute;
  tm.tm_sec = p.second;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000 + p.millis * 1'000;
}

// id + 9 columns.
struct row_image {
  int64_t id = 0;
  std::string name;    // text, 20-40 bytes
  std::string email;   // text, 20-40 bytes
  std::string amount;  // numeric, 2 decimals
  std::string rate;    // numeric, 6 decimals
  int64_t quantity = 0;
  int64_t version = 0;  // the event's LSN
  bool active = false;
  int64_t created_ms = 0, modified_ms = 0;  // since 2026 (timestamp_text)

  std::string payload_json() const {
    std::string s;
    s.reserve(256);
    s += "\"id\":" + std::to_string(id);
    s += ",\"name\":\"" + name + "\",\"email\":\"" + email + "\"";
    s += ",\"amount\":" + amount + ",\"rate\":" + rate;
    s += ",\"quantity\":" + std::to_string(quantity) + ",\"version\":" + std::to_string(version);
    s += std::string(",\"active\":") + (active ? "true" : "false");
    s += ",\"created_at\":\"" + timestamp_text(created_ms) + "\",\"modified_at\":\"" +
         timestamp_text(modified_ms) + "\"";
    return s;
  }

  // Every value is plain ASCII without tabs, newlines or backslashes: no COPY escaping.
  void append_copy_line(std::string& out, int64_t key, const std::string& csn_hex) const {
    out += std::to_string(key);
    for (const std::string* t : {&name, &email, &amount, &rate}) {
      out.push_back('\t');
      out += *t;
    }
    out += '\t' + std::to_string(quantity) + '\t' + std::to_string(version);
    out += active ? "\tt\t" : "\tf\t";
    out += timestamp_text(created_ms) + '\t' + timestamp_text(modified_ms) + "\t\\\\x" + csn_hex +
           '\n';
  }
};

const std::vector<std::string> copy_columns_of_rows = {
    "id",      "name",   "email",      "amount",      "rate",       "quantity",
    "version", "active", "created_at", "modified_at", "_sluice_csn"};

class row_maker {
 public:
  explicit row_maker(uint64_t seed) : _rng(seed) {}

  row_image make(int64_t id, uint64_t lsn) {
    static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyz";
    row_image r;
    r.id = id;
    r.name = "Customer " + std::to_string(id) + " ";
    const size_t name_len = 20 + _rng() % 21;
    while (r.name.size() < name_len)
      r.name.push_back(letters[_rng() % 26]);
    r.email = "user" + std::to_string(id) + "." + std::to_string(lsn % 1000) + "@example.com";
    while (r.email.size() < 20)
      r.email.insert(r.email.begin(), letters[_rng() % 26]);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%llu.%02llu",
                  static_cast<unsigned long long>(_rng() % 10'000'000),
                  static_cast<unsigned long long>(_rng() % 100));
    r.amount = buf;
    std::snprintf(buf, sizeof buf, "0.%06llu", static_cast<unsigned long long>(_rng() % 1'000'000));
    r.rate = buf;
    r.quantity = static_cast<int64_t>(_rng() % 1000);
    r.version = static_cast<int64_t>(lsn);
    r.active = _rng() % 2 == 0;
    r.created_ms = static_cast<int64_t>(_rng() % 31'000'000'000);
    r.modified_ms = static_cast<int64_t>(lsn % 31'000'000'000);
    return r;
  }

 private:
  std::mt19937_64 _rng;
};

// A csn of the size sluice stores for a Datastream PostgreSQL-source event (version byte, then
// two tagged 8-byte integers: source timestamp and LSN), as COPY text hex.
std::string csn_hex(uint64_t lsn) {
  const uint64_t ts = 1'767'225'600'000 + lsn;
  char buf[48];
  std::snprintf(buf, sizeof buf, "0101%016llx01%016llx",
                static_cast<unsigned long long>(ts ^ (1ull << 63)),
                static_cast<unsigned long long>(lsn ^ (1ull << 63)));
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Datastream's Avro event of a row image: one object container a message
// ---------------------------------------------------------------------------------------------

std::string avro_schema(bool stamped) {
  return std::string(
             R"({"type":"record","name":"bench_rows","namespace":"com.google.cloud.datastream",)"
             R"("fields":[{"name":"stream_name","type":"string"},)"
             R"({"name":"read_method","type":"string"},{"name":"object","type":"string"},)"
             R"({"name":"schema_key","type":"string"},{"name":"uuid","type":"string"},)"
             R"({"name":"read_timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},)"
             R"({"name":"source_timestamp","type":{"type":"long",)"
             R"("logicalType":"timestamp-millis"}},)"
             R"({"name":"sort_keys","type":{"type":"array","items":["string","long"]}},)"
             R"({"name":"source_metadata","type":{"type":"record","name":"source_metadata",)"
             R"("fields":[{"name":"schema","type":"string"},{"name":"table","type":"string"},)"
             R"({"name":"is_deleted","type":"boolean"},)"
             R"({"name":"change_type","type":["null","string"]},)"
             R"({"name":"tx_id","type":["null","string"]},{"name":"lsn","type":["null","string"]},)"
             R"({"name":"primary_keys","type":{"type":"array","items":"string"}}]}},)"
             R"({"name":"payload","type":{"type":"record","name":"payload","fields":[)"
             R"({"name":"id","type":"long"},{"name":"name","type":"string"},)"
             R"({"name":"email","type":"string"},)"
             R"({"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,)"
             R"("scale":2}},)"
             R"({"name":"rate","type":{"type":"bytes","logicalType":"decimal","precision":8,)"
             R"("scale":6}},)"
             R"({"name":"quantity","type":"long"},{"name":"version","type":"long"},)"
             R"({"name":"active","type":"boolean"},)"
             R"({"name":"created_at","type":{"type":"long","logicalType":"timestamp-micros"}},)"
             R"({"name":"modified_at","type":{"type":"long","logicalType":"timestamp-micros"}})") +
         (stamped ? R"(,{"name":"produced_us","type":"long"})" : "") + "]}}]}";
}

[[noreturn]] void avro_fail(const char* what) {
  throw std::runtime_error(std::string("Avro: ") + what + ": " + avro_strerror());
}

avro_value_t field_of(avro_value_t& record, const char* name) {
  avro_value_t field;
  if (avro_value_get_by_name(&record, name, &field, nullptr)) avro_fail(name);
  return field;
}

void set_string(avro_value_t& record, const char* name, const std::string& text) {
  avro_value_t v = field_of(record, name);
  if (avro_value_set_string_len(&v, text.c_str(), text.size() + 1)) avro_fail(name);
}

void set_long(avro_value_t& record, const char* name, int64_t n) {
  avro_value_t v = field_of(record, name);
  if (avro_value_set_long(&v, n)) avro_fail(name);
}

// Field `name`, a ["null", "string"] union, set to its string branch.
void set_nullable_string(avro_value_t& record, const char* name, const std::string& text) {
  avro_value_t field = field_of(record, name), branch;
  if (avro_value_set_branch(&field, 1, &branch) ||
      avro_value_set_string_len(&branch, text.c_str(), text.size() + 1)) {
    avro_fail(name);
  }
}

// A decimal's text ("1234.56") as Avro's decimal bytes: the unscaled value, big-endian two's
// complement, shortest.
void set_decimal(avro_value_t& record, const char* name, const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c != '.') digits += c;
  int64_t unscaled = std::strtoll(digits.c_str(), nullptr, 10);
  std::string bytes;
  for (;;) {
    bytes.insert(bytes.begin(), static_cast<char>(unscaled & 0xff));
    const int64_t rest = unscaled >> 8;
    const bool sign = (bytes.front() & 0x80) != 0;
    if ((rest == 0 && !sign) || (rest == -1 && sign)) break;
    unscaled = rest;
  }
  avro_value_t v = field_of(record, name);
  if (avro_value_set_bytes(&v, bytes.data(), bytes.size())) avro_fail(name);
}

class datastream_avro_event {
 public:
  datastream_avro_event(std::string table, bool stamped)
      : _table(std::move(table)), _writer(avro_schema(stamped)) {}

  std::string container(const std::string& change_type, uint64_t lsn, const row_image& r,
                        std::optional<int64_t> produced_us) {
    avro_value_t& e = _writer.value();
    const int64_t ts = 1'767'225'600'000 + static_cast<int64_t>(lsn);
    const std::string lsn_text = format_lsn(lsn);
    set_string(e, "stream_name", "projects/p/locations/l/streams/s");
    set_string(e, "read_method", "postgresql-cdc");
    set_string(e, "object", "public_" + _table);
    set_string(e, "schema_key", "k");
    set_string(e, "uuid", "00000000-0000-4000-8000-" + std::to_string(100000000000 + lsn));
    set_long(e, "read_timestamp", 1'767'225'601'000);
    set_long(e, "source_timestamp", ts);
    avro_value_t keys = field_of(e, "sort_keys"), item, branch;
    if (avro_value_reset(&keys) || avro_value_append(&keys, &item, nullptr) ||
        avro_value_set_branch(&item, 1, &branch) || avro_value_set_long(&branch, ts) ||
        avro_value_append(&keys, &item, nullptr) || avro_value_set_branch(&item, 0, &branch) ||
        avro_value_set_string(&branch, lsn_text.c_str())) {
      avro_fail("sort_keys");
    }
    avro_value_t meta = field_of(e, "source_metadata");
    set_string(meta, "schema", "public");
    set_string(meta, "table", _table);
    avro_value_t deleted = field_of(meta, "is_deleted");
    if (avro_value_set_boolean(&deleted, change_type == "DELETE")) avro_fail("is_deleted");
    set_nullable_string(meta, "change_type", change_type);
    set_nullable_string(meta, "tx_id", std::to_string(lsn));
    set_nullable_string(meta, "lsn", lsn_text);
    avro_value_t pks = field_of(meta, "primary_keys");
    if (avro_value_reset(&pks) || avro_value_append(&pks, &item, nullptr) ||
        avro_value_set_string(&item, "id")) {
      avro_fail("primary_keys");
    }

    avro_value_t p = field_of(e, "payload");
    set_long(p, "id", r.id);
    set_string(p, "name", r.name);
    set_string(p, "email", r.email);
    set_decimal(p, "amount", r.amount);
    set_decimal(p, "rate", r.rate);
    set_long(p, "quantity", r.quantity);
    set_long(p, "version", r.version);
    avro_value_t active = field_of(p, "active");
    if (avro_value_set_boolean(&active, r.active)) avro_fail("active");
    set_long(p, "created_at", timestamp_micros(r.created_ms));
    set_long(p, "modified_at", timestamp_micros(r.modified_ms));
    if (produced_us) set_long(p, "produced_us", *produced_us);
    return _writer.container(_writer.record());
  }

 private:
  std::string _table;
  avro_container_writer _writer;
};

// ---------------------------------------------------------------------------------------------
// The workload
// ---------------------------------------------------------------------------------------------

class datastream_workload final : public bench_workload {
 public:
  datastream_workload(std::string table, size_t events, uint64_t seed, bool stamped, bool avro,
                      bool inserts_only)
      : _table(std::move(table)), _rng(seed), _rows(seed + 1), _inserts_only(inserts_only) {
    // 1% of the ~60% of events that insert; none when every event inserts a new key.
    _hot = inserts_only ? 0 : std::max<size_t>(1, events * 6 / 1000);
    if (avro) _avro.emplace(_table, stamped);
  }

  const char* sluice_format() const override { return "datastream"; }
  std::string describe() const override {
    return std::string("Datastream ") + (_avro ? "Avro" : "JSON") +
           " events (PostgreSQL source, 10 columns" + (_inserts_only ? ", inserts only)" : ")");
  }
  const std::vector<std::string>& copy_columns() const override { return copy_columns_of_rows; }
  size_t live_keys() const override { return _hot + _live.size(); }
  size_t hot_keys() const override { return _hot; }

  bench_op next(std::vector<bench_message>& out, std::string& copy, int64_t copy_key) override {
    const uint64_t lsn = next_lsn();
    const auto [op, id] = pick();
    const row_image r = _rows.make(id, lsn);
    const char* type = op == bench_op::insert   ? "INSERT"
                       : op == bench_op::update ? "UPDATE"
                                                : "DELETE";
    out.push_back({std::to_string(id), message(type, lsn, r, std::nullopt)});
    if (op != bench_op::remove) r.append_copy_line(copy, copy_key, csn_hex(lsn));
    return op;
  }

  bench_message stamped_insert(int64_t id, int64_t produced_us) override {
    const uint64_t lsn = next_lsn();
    return {std::to_string(id), message("INSERT", lsn, _rows.make(id, lsn), produced_us)};
  }

 private:
  uint64_t next_lsn() { return 0x1'0000'0000ull + ++_count * 16; }

  std::pair<bench_op, int64_t> pick() {
    if (_inserts_only || _next_id <= static_cast<int64_t>(_hot)) {
      if (_inserts_only) _live.push_back(_next_id);
      return {bench_op::insert, _next_id++};
    }
    const uint64_t dice = _rng() % 100;
    if (dice < 20) return {bench_op::update, 1 + static_cast<int64_t>(_rng() % _hot)};
    if (dice < 30 && !_live.empty()) {
      const size_t i = _rng() % _live.size();
      const int64_t id = _live[i];
      _live[i] = _live.back();
      _live.pop_back();
      return {bench_op::remove, id};
    }
    if (dice < 40 && !_live.empty()) return {bench_op::update, _live[_rng() % _live.size()]};
    _live.push_back(_next_id);
    return {bench_op::insert, _next_id++};
  }

  std::string message(const char* type, uint64_t lsn, const row_image& r,
                      std::optional<int64_t> produced_us) {
    if (_avro) return _avro->container(type, lsn, r, produced_us);
    datastream_event e;
    e.table = _table;
    e.change_type = type;
    e.lsn = lsn;
    e.payload_json = r.payload_json();
    if (produced_us) e.payload_json += ",\"produced_us\":" + std::to_string(*produced_us);
    return e.json();
  }

  std::string _table;
  std::mt19937_64 _rng;
  row_maker _rows;
  std::optional<datastream_avro_event> _avro;
  bool _inserts_only = false;
  size_t _hot = 1;
  uint64_t _count = 0;
  int64_t _next_id = 1;
  std::vector<int64_t> _live;  // inserted cold keys not deleted since (hot keys never are)
};

}  // namespace

std::unique_ptr<bench_workload> make_datastream_workload(const std::string& table, size_t events,
                                                         uint64_t seed, bool stamped, bool avro,
                                                         bool inserts_only) {
  return std::make_unique<datastream_workload>(table, events, seed, stamped, avro, inserts_only);
}

}  // namespace sluice::testing
