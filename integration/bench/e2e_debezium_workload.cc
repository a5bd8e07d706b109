// e2e_bench's Debezium topics: JsonConverter with and without schemas (see e2e_workloads.h).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "integration/bench/e2e_workloads.h"

namespace sluice::testing {
namespace {

enum class column_kind { bigint, real, integer, status, note, flag, micros, absent };

struct column {
  std::string name;
  column_kind kind;
};

// id, then `count - 1` columns cycling through ten kinds (a suffix from the second round on:
// amount_2, …). Ten kinds as a Debezium PostgreSQL source writes an orders table with
// decimal.handling.mode=double and adaptive_time_microseconds.
std::vector<column> columns_of(size_t count, bool stamped) {
  static const column base[] = {
      {"customer_id", column_kind::bigint}, {"amount", column_kind::real},
      {"tax_rate", column_kind::real},      {"quantity", column_kind::integer},
      {"status", column_kind::status},      {"note", column_kind::note},
      {"is_gift", column_kind::flag},       {"created_at", column_kind::micros},
      {"updated_at", column_kind::micros},  {"discount_code", column_kind::absent},
  };
  std::vector<column> out{{"id", column_kind::bigint}};
  for (size_t i = 0; out.size() < count; ++i) {
    column c = base[i % 10];
    if (i >= 10) c.name += "_" + std::to_string(i / 10 + 1);
    out.push_back(c);
  }
  if (stamped) out.push_back({"produced_us", column_kind::bigint});
  return out;
}

std::string connect_field(const column& c) {
  switch (c.kind) {
    case column_kind::bigint:
      return R"({"type":"int64",)" +
             std::string(c.name == "id" ? R"("optional":false)" : R"("optional":true)") +
             R"(,"field":")" + c.name + "\"}";
    case column_kind::real:
      return R"({"type":"double","optional":true,"field":")" + c.name + "\"}";
    case column_kind::integer:
      return R"({"type":"int32","optional":true,"field":")" + c.name + "\"}";
    case column_kind::flag:
      return R"({"type":"boolean","optional":true,"field":")" + c.name + "\"}";
    case column_kind::micros:
      return R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp",)"
             R"("version":1,"field":")" +
             c.name + "\"}";
    default:
      return R"({"type":"string","optional":true,"field":")" + c.name + "\"}";
  }
}

// JsonConverter's schema of the value envelope (transaction metadata on).
std::string value_schema(const std::string& table, const std::vector<column>& columns) {
  std::string cols = "[";
  for (const column& c : columns)
    cols += (cols.size() > 1 ? "," : "") + connect_field(c);
  cols += "]";
  const std::string value = "pg.public." + table + ".Value";
  return R"({"type":"struct","fields":[{"type":"struct","fields":)" + cols +
         R"(,"optional":true,"name":")" + value + R"(","field":"before"},)" +
         R"({"type":"struct","fields":)" + cols + R"(,"optional":true,"name":")" + value +
         R"(","field":"after"},)" +
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},)"
         R"({"type":"string","optional":false,"field":"connector"},)"
         R"({"type":"string","optional":false,"field":"name"},)"
         R"({"type":"int64","optional":false,"field":"ts_ms"},)"
         R"({"type":"int64","optional":true,"field":"ts_us"},)"
         R"({"type":"int64","optional":true,"field":"ts_ns"},)"
         R"({"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,)"
         R"("parameters":{"allowed":"true,last,false,incremental"},"default":"false",)"
         R"("field":"snapshot"},{"type":"string","optional":false,"field":"db"},)"
         R"({"type":"string","optional":true,"field":"sequence"},)"
         R"({"type":"string","optional":false,"field":"schema"},)"
         R"({"type":"string","optional":false,"field":"table"},)"
         R"({"type":"int64","optional":true,"field":"txId"},)"
         R"({"type":"int64","optional":true,"field":"lsn"},)"
         R"({"type":"int64","optional":true,"field":"xmin"}],"optional":false,)"
         R"("name":"io.debezium.connector.postgresql.Source","field":"source"},)"
         R"({"type":"string","optional":false,"field":"op"},)"
         R"({"type":"int64","optional":true,"field":"ts_ms"},)"
         R"({"type":"int64","optional":true,"field":"ts_us"},)"
         R"({"type":"int64","optional":true,"field":"ts_ns"},)"
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},)"
         R"({"type":"int64","optional":false,"field":"total_order"},)"
         R"({"type":"int64","optional":false,"field":"data_collection_order"}],)"
         R"("optional":true,"name":"event.block","version":1,"field":"transaction"}],)"
         R"("optional":false,"name":"pg.public.)" +
         table + R"(.Envelope","version":1})";
}

// "2024-01-15 11:30:00.123456" from µs since the epoch (COPY text of a timestamp).
std::string timestamp_text(int64_t us) {
  const std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lld", static_cast<long long>(us % 1'000'000));
  return buf;
}

class debezium_workload final : public bench_workload {
 public:
  debezium_workload(std::string table, uint64_t seed, bool stamped, size_t columns, bool schemas)
      : _table(std::move(table)),
        _columns(columns_of(columns, stamped)),
        _schemas(schemas),
        _rng(seed) {
    for (const column& c : _columns)
      if (c.name != "produced_us") _copy_columns.push_back(c.name);
    _copy_columns.push_back("_sluice_csn");
    if (_schemas) {
      _value_prefix = R"({"schema":)" + value_schema(_table, _columns) + R"(,"payload":)";
      _key_prefix = R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,)"
                    R"("field":"id"}],"optional":false,"name":"pg.public.)" +
                    _table + R"(.Key"},"payload":)";
    }
  }

  const char* sluice_format() const override { return "debezium"; }
  std::string describe() const override {
    return "Debezium JSON " + std::string(_schemas ? "with schemas" : "without schemas") +
           " (PostgreSQL source, " + std::to_string(_copy_columns.size() - 1) +
           " columns, transactions of 400 inserts + 500 updates + 100 deletes)";
  }
  const std::vector<std::string>& copy_columns() const override { return _copy_columns; }
  size_t live_keys() const override { return _live.size(); }

  bench_op next(std::vector<bench_message>& out, std::string& copy, int64_t copy_key) override {
    if (_in_tx == _tx.size()) begin_transaction();
    bench_op op = _tx[_in_tx++];
    if (op != bench_op::insert && _live.empty()) op = bench_op::insert;
    int64_t id = 0;
    if (op == bench_op::insert) {
      id = _next_id++;
      _live.push_back(id);
    } else {
      const size_t i = _rng() % _live.size();
      id = _live[i];
      if (op == bench_op::remove) {
        _live[i] = _live.back();
        _live.pop_back();
      }
    }
    const uint64_t lsn = _lsn += 56;
    std::string image =
        op == bench_op::remove ? key_only_image(id) : make_image(id, &copy, copy_key);
    if (op != bench_op::remove) finish_copy_line(copy, lsn);
    out.push_back({key(id), envelope(op, image, lsn)});
    if (op == bench_op::remove) out.push_back({key(id), std::nullopt});  // the tombstone
    return op;
  }

  bench_message stamped_insert(int64_t id, int64_t produced_us) override {
    if (_in_tx == _tx.size()) begin_transaction();
    ++_in_tx;
    _stamp = produced_us;
    const std::string image = make_image(id, nullptr, 0);
    return {key(id), envelope(bench_op::insert, image, _lsn += 56)};
  }

 private:
  void begin_transaction() {
    _tx.assign(400, bench_op::insert);
    _tx.insert(_tx.end(), 500, bench_op::update);
    _tx.insert(_tx.end(), 100, bench_op::remove);
    std::shuffle(_tx.begin(), _tx.end(), _rng);
    _in_tx = 0;
    _tx_id += 1 + _rng() % 3;
  }

  std::string key(int64_t id) const {
    const std::string k = R"({"id":)" + std::to_string(id) + "}";
    return _schemas ? _key_prefix + k + "}" : k;
  }

  // The row image as JSON; with `copy`, its COPY text values (all but the csn, `copy_key` for
  // the id) appended.
  std::string make_image(int64_t id, std::string* copy, int64_t copy_key) {
    static constexpr const char* statuses[] = {"NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};
    static constexpr char letters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";
    std::string json = "{";
    auto add = [&](const column& c, const std::string& as_json, const std::string& as_copy) {
      if (json.size() > 1) json += ',';
      json += '"' + c.name + "\":" + as_json;
      if (copy && c.name != "produced_us") {
        if (c.name != "id") copy->push_back('\t');
        *copy += as_copy;
      }
    };
    for (const column& c : _columns) {
      switch (c.kind) {
        case column_kind::bigint: {
          if (c.name == "id") {
            add(c, std::to_string(id), std::to_string(copy_key));
            break;
          }
          const std::string n =
              std::to_string(c.name == "produced_us" ? _stamp : 1 + _rng() % 5'000'000);
          add(c, n, n);
          break;
        }
        case column_kind::real: {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%llu.%02llu",
                        static_cast<unsigned long long>(_rng() % 100'000),
                        static_cast<unsigned long long>(1 + _rng() % 99));
          add(c, buf, buf);
          break;
        }
        case column_kind::integer: {
          const std::string n = std::to_string(1 + _rng() % 40);
          add(c, n, n);
          break;
        }
        case column_kind::status: {
          const std::string s = statuses[_rng() % 5];
          add(c, '"' + s + '"', s);
          break;
        }
        case column_kind::note: {
          std::string s(20 + _rng() % 41, ' ');
          for (char& ch : s)
            ch = letters[_rng() % (sizeof letters - 1)];
          add(c, '"' + s + '"', s);
          break;
        }
        case column_kind::flag: {
          const bool b = _rng() % 4 == 0;
          add(c, b ? "true" : "false", b ? "t" : "f");
          break;
        }
        case column_kind::micros: {
          const int64_t us = 1'767'225'600'000'000 + static_cast<int64_t>(_lsn) * 1'000 +
                             static_cast<int64_t>(_rng() % 1'000'000);
          add(c, std::to_string(us), _schemas ? timestamp_text(us) : std::to_string(us));
          break;
        }
        case column_kind::absent:
          add(c, "null", "\\N");
          break;
      }
    }
    return json + "}";
  }

  // A delete's before image under REPLICA IDENTITY DEFAULT: the key, every other column null.
  std::string key_only_image(int64_t id) const {
    std::string json = R"({"id":)" + std::to_string(id);
    for (const column& c : _columns)
      if (c.name != "id") json += ",\"" + c.name + "\":null";
    return json + "}";
  }

  // The csn sluice keeps for a PostgreSQL-source change: [1, lsn, sequence's two parts].
  static void finish_copy_line(std::string& copy, uint64_t lsn) {
    char buf[96];
    const auto part = [](uint64_t v) { return static_cast<unsigned long long>(v ^ (1ull << 63)); };
    std::snprintf(buf, sizeof buf, "\t\\\\x0101%016llx01%016llx01%016llx01%016llx\n", part(1),
                  part(lsn), part(lsn - 56), part(lsn));
    copy += buf;
  }

  std::string envelope(bench_op op, const std::string& image, uint64_t lsn) {
    const int64_t ts_ms = 1'767'225'600'000 + static_cast<int64_t>(lsn / 1000);
    const char* code = op == bench_op::insert ? "c" : op == bench_op::update ? "u" : "d";
    const std::string lsn_text = std::to_string(lsn);
    std::string payload =
        R"({"before":)" + (op == bench_op::remove ? image : "null") + R"(,"after":)" +
        (op == bench_op::remove ? "null" : image) +
        R"(,"source":{"version":"2.7.0.Final","connector":"postgresql","name":"pg","ts_ms":)" +
        std::to_string(ts_ms) + R"(,"ts_us":)" + std::to_string(ts_ms * 1000) + R"(,"ts_ns":)" +
        std::to_string(ts_ms * 1'000'000) + R"(,"snapshot":"false","db":"shop","sequence":"[\")" +
        std::to_string(lsn - 56) + R"(\",\")" + lsn_text + R"(\"]","schema":"public","table":")" +
        _table + R"(","txId":)" + std::to_string(_tx_id) + R"(,"lsn":)" + lsn_text +
        R"(,"xmin":null},"op":")" + code + R"(","ts_ms":)" + std::to_string(ts_ms + 230) +
        R"(,"ts_us":)" + std::to_string((ts_ms + 230) * 1000) + R"(,"ts_ns":)" +
        std::to_string((ts_ms + 230) * 1'000'000) + R"(,"transaction":{"id":")" +
        std::to_string(_tx_id) + ":" + lsn_text + R"(","total_order":)" + std::to_string(_in_tx) +
        R"(,"data_collection_order":)" + std::to_string(_in_tx) + "}}";
    return _schemas ? _value_prefix + payload + "}" : payload;
  }

  std::string _table;
  std::vector<column> _columns;
  std::vector<std::string> _copy_columns;
  bool _schemas;
  std::string _value_prefix, _key_prefix;
  std::mt19937_64 _rng;
  std::vector<bench_op> _tx;
  size_t _in_tx = 0;
  uint64_t _tx_id = 771;
  uint64_t _lsn = 0x16B3748;
  int64_t _next_id = 1;
  int64_t _stamp = 0;
  std::vector<int64_t> _live;
};

}  // namespace

std::unique_ptr<bench_workload> make_debezium_workload(const std::string& table, uint64_t seed,
                                                       bool stamped, size_t columns, bool schemas) {
  return std::make_unique<debezium_workload>(table, seed, stamped, columns, schemas);
}

}  // namespace sluice::testing
