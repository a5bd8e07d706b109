// Decoder throughput on one thread (SPEC §8 "Benchmarks"), against a same-run reference: a bare
// simdjson On-Demand pass over the same bytes that touches every field (each object iterated,
// each key unescaped, numbers as raw_json_token, strings via get_string, booleans and nulls
// read, nested objects and arrays walked).
//
//   build/integration/decode_bench [--events N] [--passes N] [--only FORMAT] [--tables N]
//                                  [--clear-every N] [--tsv]
//
// Per format (datastream, datastream+avro, debezium, debezium+schema, debezium+avro, dsql,
// goldengate) it
// generates N distinct events in memory (default 200,000; 450-750 bytes, ~3.4 KB with
// Debezium's schema wrapper; 10 columns: integers, decimals as JSON numbers, strings with
// escapes, a boolean, a timestamp, a null; distinct keys; 60% inserts, 35% updates, 5% deletes),
// decodes them once untimed (each must decode to one keyed change), then times `passes` passes of
// each, alternating: the decoder (one reused decode_output, cleared every --clear-every messages,
// default 1, the clear() timed too) and the bare pass. Time is the thread's CPU time (the machine
// is shared: time spent descheduled is not the decoder's), so events/s are per busy core. It prints
// events/s and MB/s (best and median pass), allocations per event (operator new calls in the timed
// decoder passes only) and decoder / bare (best / best, median / median). Message keys (Debezium)
// are part of the bytes and of the bare pass. integration/bench/run_decode_bench.sh runs it several
// times and summarizes the runs.
//
// debezium+avro is the rows of debezium+schema as Confluent's AvroConverter writes them: the
// same columns and logical types rendered as Avro schemas (value and key records, connect.name
// etc.), each event written by Avro C's generic writer, framed (byte 0, big-endian schema id,
// Avro binary; ids 1 and 2 for `orders`' key and value, 2t+1 / 2t+2 for table t) and decoded
// with the writer schemas from an in-memory schema_source. Besides the usual check, the first
// 400 events must decode to the same changes as their debezium+schema twins (op, key, after
// image; double columns compared as numbers: "55662.50" in the JSON is "55662.5" from Avro). Its
// reference cannot be simdjson: the bare pass of this format is a bare Avro C read of the same
// bytes (header parsed, avro_value_read into a reused generic value of the writer schema, no
// conversion). Avro C allocates with malloc, not operator new: its allocations are not in the
// allocs column.
//
// datastream+avro is the rows of datastream as Datastream's Avro events, one object container
// per message (integration/support/avro_container_writer: every byte written by Avro C, the
// writer schema's logical types kept); the first 400 must decode to their JSON twins' changes.
// Its bare pass is Avro C reading each container's record into a generic value.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <avro.h>
#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "integration/support/avro_container_writer.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/dsql/dsql_decoder.h"
#include "schemas/goldengate/goldengate_decoder.h"
#include "schemas/registry/schema_source.h"

// ---------------------------------------------------------------------------------------------
// Allocation counting: every global operator new of the process goes through here; calls are
// counted only while g_counting is set (the timed decoder passes; one thread). The replacements
// pair malloc with free, which GCC cannot see through once they are inlined.
// ---------------------------------------------------------------------------------------------
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
bool g_counting = false;
uint64_t g_allocations = 0;
uint64_t g_allocated_bytes = 0;

void* counted_alloc(std::size_t size, std::size_t align = 0) {
  if (g_counting) {
    ++g_allocations;
    g_allocated_bytes += size;
  }
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t)
                ? std::aligned_alloc(align, (size + align - 1) / align * align)
                : std::malloc(size);
  return p;
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = counted_alloc(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = counted_alloc(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace {

using sluice::raw_message;

// Seconds of CPU time this thread has used: on a shared machine, time spent descheduled is
// not the decoder's (events per CPU-second is the per-core figure the targets are set in).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct options {
  size_t events = 200'000;
  int passes = 5;
  std::string only;
  size_t tables = 1;
  size_t clear_every = 1;
  bool tsv = false;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--tsv") {
      o.tsv = true;
    } else if (next && arg == "--events") {
      o.events = std::strtoul(argv[++i], nullptr, 10);
    } else if (next && arg == "--passes") {
      o.passes = std::atoi(argv[++i]);
    } else if (next && arg == "--only") {
      o.only = argv[++i];
    } else if (next && arg == "--tables") {
      o.tables = std::max<size_t>(1, std::strtoul(argv[++i], nullptr, 10));
    } else if (next && arg == "--clear-every") {
      o.clear_every = std::max<size_t>(1, std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr,
                   "usage: decode_bench [--events N] [--passes N] [--only FORMAT] [--tables N] "
                   "[--clear-every N] [--tsv]\n");
      std::exit(2);
    }
  }
  o.passes = std::max(o.passes, 1);
  o.events = std::max<size_t>(o.events, 1);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Event generation. One row of the benchmark table `orders`, its JSON text per format.
// ---------------------------------------------------------------------------------------------

enum class row_op { insert, update, remove };

struct row {
  row_op op;
  std::string table;  // orders, orders_1, …
  int64_t id;
  int64_t customer_id;
  std::string amount;    // a decimal as a JSON number: "1234.56"
  std::string tax_rate;  // "0.0825"
  int64_t quantity;
  std::string status;
  std::string note;  // JSON string body, escapes included
  bool gift;
  int64_t created_us;  // µs since the epoch
  int64_t position;    // a rising source position
};

class row_generator {
 public:
  explicit row_generator(size_t tables) : _tables(tables) {}

  row next(size_t i) {
    row r;
    const uint64_t dice = _rng() % 100;
    r.op = dice < 60 ? row_op::insert : dice < 95 ? row_op::update : row_op::remove;
    r.table = i % _tables == 0 ? "orders" : "orders_" + std::to_string(i % _tables);
    // Distinct ids of varying width: an odd multiplier permutes 32-bit integers.
    r.id = static_cast<int64_t>((i * 2654435761ULL) % 4294967296ULL) + 1;
    r.customer_id = static_cast<int64_t>(_rng() % 5'000'000) + 1;
    r.amount = std::to_string(_rng() % 100'000) + "." + two_digits(_rng() % 100);
    r.tax_rate = "0.0" + std::to_string(100 + _rng() % 900);
    r.quantity = static_cast<int64_t>(_rng() % 40) + 1;
    static constexpr const char* statuses[] = {"NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};
    r.status = statuses[_rng() % 5];
    static constexpr const char* notes[] = {
        R"(Leave at the \"side door\"; ring twice.\nThanks! )",
        R"(Caf\u00e9 order \u2013 fragile, keep upright \\ no stacking )",
        R"(Gift wrap: \"Happy birthday, Ana!\"\tno receipt )",
        R"(Call ahead \/ gate code 4471 )",
    };
    r.note = notes[_rng() % 4] + filler(8 + _rng() % 24);
    r.gift = _rng() % 4 == 0;
    r.created_us = 1'705'318'200'000'000 + static_cast<int64_t>(i) * 1'000 +
                   static_cast<int64_t>(_rng() % 1'000);
    r.position = 4'000 + static_cast<int64_t>(i) * 377;
    return r;
  }

  std::string filler(size_t n) {
    static constexpr char chars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(n, ' ');
    for (char& c : s)
      c = chars[_rng() % (sizeof chars - 1)];
    return s;
  }
  std::string hex(size_t n) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(n, '0');
    for (char& c : s)
      c = digits[_rng() % 16];
    return s;
  }

 private:
  static std::string two_digits(uint64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }

  size_t _tables;
  std::mt19937_64 _rng{42};
};

// "2024-01-15T11:30:00.123456" (+ "Z" when zoned), from µs since the epoch.
std::string iso(int64_t us, int digits, bool zoned) {
  const std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (digits > 0) {
    char frac[16];
    const int64_t scale = digits == 3 ? 1'000 : 1;
    std::snprintf(frac, sizeof frac, ".%0*lld", digits,
                  static_cast<long long>((us % 1'000'000) / scale));
    out += frac;
  }
  if (zoned) out += "Z";
  return out;
}

// The ten columns as JSON members, in the given case ("id" or "ID").
std::string columns_json(const row& r, bool upper, bool timestamp_as_micros) {
  auto name = [upper](std::string n) {
    if (upper) std::transform(n.begin(), n.end(), n.begin(), ::toupper);
    return "\"" + n + "\":";
  };
  std::string s = "{";
  s += name("id") + std::to_string(r.id);
  s += "," + name("customer_id") + std::to_string(r.customer_id);
  s += "," + name("amount") + r.amount;
  s += "," + name("tax_rate") + r.tax_rate;
  s += "," + name("quantity") + std::to_string(r.quantity);
  s += "," + name("status") + "\"" + r.status + "\"";
  s += "," + name("note") + "\"" + r.note + "\"";
  s += "," + name("is_gift") + (r.gift ? "true" : "false");
  s += "," + name("created_at") +
       (timestamp_as_micros ? std::to_string(r.created_us)
                            : "\"" + iso(r.created_us, 6, false) + "\"");
  s += "," + name("discount_code") + "null";
  return s + "}";
}

struct message_set {
  std::string topic;
  std::vector<std::string> values;
  std::vector<std::string> keys;    // empty: messages without a key
  std::vector<std::string> primer;  // decoded once before the timed passes (metadata records)
  // Confluent-framed Avro (debezium+avro): the writer schemas by id, JSON text. Set: the bare
  // pass is Avro C's reader, not simdjson.
  std::map<int32_t, std::string> avro_schemas;
  // Avro object containers (datastream+avro): their writer schema. Set: the bare pass is Avro
  // C's reader of the record.
  std::string container_schema;
  size_t container_header_bytes = 0;  // the same in every message of the set
};

message_set datastream_messages(const options& o) {
  message_set m{"datastream.shop.orders", {}, {}, {}, {}, {}, 0};
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    const std::string log_file = "mysql-bin.0" + std::to_string(10'000 + r.position / 50'000'000);
    const std::string pos = std::to_string(r.position);
    const char* type = r.op == row_op::insert   ? "INSERT"
                       : r.op == row_op::update ? "UPDATE"
                                                : "DELETE";
    std::string e = R"({"uuid":")" + gen.hex(8) + "-" + gen.hex(4) + "-4" + gen.hex(3) + "-a" +
                    gen.hex(3) + "-" + gen.hex(12) + R"(","read_timestamp":")" +
                    iso(r.created_us + 350'000, 3, true) + R"(","source_timestamp":")" +
                    iso(r.created_us, 3, true) + R"(","object":"shop_)" + r.table +
                    R"(","read_method":"mysql-cdc-binlog","stream_name":"projects/acme/locations/)"
                    R"(us-central1/streams/shop","sort_keys":[")" +
                    log_file + "\"," + pos + R"(],"source_metadata":{"table":")" + r.table +
                    R"(","database":"shop","primary_keys":["id"],"log_file":")" + log_file +
                    R"(","log_position":)" + pos + R"(,"change_type":")" + type +
                    R"(","is_deleted":)" + (r.op == row_op::remove ? "true" : "false") +
                    R"(},"payload":)" + columns_json(r, false, false) + "}";
    m.values.push_back(std::move(e));
  }
  return m;
}

std::string debezium_pg_source(const row& r, int64_t ts_ms) {
  const std::string lsn = std::to_string(r.position * 8);
  return R"({"version":"2.5.0.Final","connector":"postgresql","name":"pg","ts_ms":)" +
         std::to_string(ts_ms) + R"(,"snapshot":"false","db":"shop","sequence":"[\")" +
         std::to_string(r.position * 8 - 40) + R"(\",\")" + lsn + R"(\"]","schema":"public",)" +
         R"("table":")" + r.table + R"(","txId":)" + std::to_string(r.position / 3) + R"(,"lsn":)" +
         lsn + R"(,"xmin":null})";
}

// Debezium's JsonConverter schema of the `orders` value envelope (decimal.handling.mode=double,
// time.precision.mode=adaptive_time_microseconds).
std::string debezium_value_schema(const std::string& table) {
  const std::string cols =
      R"([{"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"int64","optional":true,"field":"customer_id"},)"
      R"({"type":"double","optional":true,"field":"amount"},)"
      R"({"type":"double","optional":true,"field":"tax_rate"},)"
      R"({"type":"int32","optional":true,"field":"quantity"},)"
      R"({"type":"string","optional":true,"field":"status"},)"
      R"({"type":"string","optional":true,"field":"note"},)"
      R"({"type":"boolean","optional":true,"field":"is_gift"},)"
      R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,)"
      R"("field":"created_at"},)"
      R"({"type":"string","optional":true,"field":"discount_code"}])";
  const std::string value = "pg.public." + table + ".Value";
  return R"({"type":"struct","fields":[{"type":"struct","fields":)" + cols +
         R"(,"optional":true,"name":")" + value + R"(","field":"before"},)" +
         R"({"type":"struct","fields":)" + cols + R"(,"optional":true,"name":")" + value +
         R"(","field":"after"},)" +
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},)"
         R"({"type":"string","optional":false,"field":"connector"},)"
         R"({"type":"string","optional":false,"field":"name"},)"
         R"({"type":"int64","optional":false,"field":"ts_ms"},)"
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
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},)"
         R"({"type":"int64","optional":false,"field":"total_order"},)"
         R"({"type":"int64","optional":false,"field":"data_collection_order"}],)"
         R"("optional":true,"name":"event.block","version":1,"field":"transaction"}],)"
         R"("optional":false,"name":"pg.public.)" +
         table + R"(.Envelope","version":1})";
}

message_set debezium_messages(const options& o, bool wrapped) {
  message_set m{"pg.public.orders", {}, {}, {}, {}, {}, 0};
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  m.keys.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    const int64_t ts_ms = r.created_us / 1'000;
    const std::string image = columns_json(r, false, wrapped);
    const char* op = r.op == row_op::insert ? "c" : r.op == row_op::update ? "u" : "d";
    std::string payload = R"({"before":)" + (r.op == row_op::remove ? image : "null") +
                          R"(,"after":)" + (r.op == row_op::remove ? "null" : image) +
                          R"(,"source":)" + debezium_pg_source(r, ts_ms) + R"(,"op":")" + op +
                          R"(","ts_ms":)" + std::to_string(ts_ms + 230) + R"(,"transaction":null})";
    std::string key = R"({"id":)" + std::to_string(r.id) + "}";
    if (wrapped) {
      payload = R"({"schema":)" + debezium_value_schema(r.table) + R"(,"payload":)" + payload + "}";
      key = R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,)"
            R"("field":"id"}],"optional":false,"name":"pg.public.)" +
            r.table + R"(.Key"},"payload":)" + key + "}";
    }
    m.values.push_back(std::move(payload));
    m.keys.push_back(std::move(key));
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// debezium+avro: the rows of debezium+schema as Confluent's AvroConverter writes them (the
// JsonConverter schema above rendered in Avro: optional fields as ["null", T] unions,
// connect.name / connect.parameters / connect.type on the types), each event written by Avro
// C's generic writer and framed (0, 4-byte big-endian schema id, Avro binary).
// ---------------------------------------------------------------------------------------------

std::string debezium_avro_value_schema(const std::string& table) {
  const std::string ns = "pg.public." + table;
  return R"({"type":"record","name":"Envelope","namespace":")" + ns +
         R"(","fields":[{"name":"before","type":["null",{"type":"record","name":"Value",)"
         R"("fields":[{"name":"id","type":"long"},)"
         R"({"name":"customer_id","type":["null","long"],"default":null},)"
         R"({"name":"amount","type":["null","double"],"default":null},)"
         R"({"name":"tax_rate","type":["null","double"],"default":null},)"
         R"({"name":"quantity","type":["null","int"],"default":null},)"
         R"({"name":"status","type":["null","string"],"default":null},)"
         R"({"name":"note","type":["null","string"],"default":null},)"
         R"({"name":"is_gift","type":["null","boolean"],"default":null},)"
         R"({"name":"created_at","type":["null",{"type":"long","connect.version":1,)"
         R"("connect.name":"io.debezium.time.MicroTimestamp"}],"default":null},)"
         R"({"name":"discount_code","type":["null","string"],"default":null}],)"
         R"("connect.name":")" +
         ns + R"(.Value"}],"default":null},)" +
         R"({"name":"after","type":["null","Value"],"default":null},)"
         R"({"name":"source","type":{"type":"record","name":"Source",)"
         R"("namespace":"io.debezium.connector.postgresql",)"
         R"("fields":[{"name":"version","type":"string"},)"
         R"({"name":"connector","type":"string"},{"name":"name","type":"string"},)"
         R"({"name":"ts_ms","type":"long"},{"name":"snapshot","type":[{"type":"string",)"
         R"("connect.version":1,"connect.parameters":{"allowed":"true,last,false,incremental"},)"
         R"("connect.default":"false","connect.name":"io.debezium.data.Enum"},"null"],)"
         R"("default":"false"},{"name":"db","type":"string"},)"
         R"({"name":"sequence","type":["null","string"],"default":null},)"
         R"({"name":"schema","type":"string"},{"name":"table","type":"string"},)"
         R"({"name":"txId","type":["null","long"],"default":null},)"
         R"({"name":"lsn","type":["null","long"],"default":null},)"
         R"({"name":"xmin","type":["null","long"],"default":null}],)"
         R"("connect.name":"io.debezium.connector.postgresql.Source"}},)"
         R"({"name":"op","type":"string"},{"name":"ts_ms","type":["null","long"],"default":null},)"
         R"({"name":"transaction","type":["null",{"type":"record","name":"block",)"
         R"("namespace":"event","fields":[{"name":"id","type":"string"},)"
         R"({"name":"total_order","type":"long"},{"name":"data_collection_order","type":"long"}],)"
         R"("connect.version":1,"connect.name":"event.block"}],"default":null}],)"
         R"("connect.version":1,"connect.name":")" +
         ns + R"(.Envelope"})";
}

std::string debezium_avro_key_schema(const std::string& table) {
  const std::string ns = "pg.public." + table;
  return R"({"type":"record","name":"Key","namespace":")" + ns +
         R"(","fields":[{"name":"id","type":"long"}],"connect.name":")" + ns + R"(.Key"})";
}

[[noreturn]] void avro_fail(const char* what) {
  std::fprintf(stderr, "debezium+avro: %s: %s\n", what, avro_strerror());
  std::exit(1);
}

// One Avro C generic value of a schema, written again for every event.
class avro_record_writer {
 public:
  explicit avro_record_writer(const std::string& schema_json) {
    if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &_schema)) {
      avro_fail("schema");
    }
    _iface = avro_generic_class_from_schema(_schema);
    if (!_iface || avro_generic_value_new(_iface, &_value)) avro_fail("generic value");
  }
  ~avro_record_writer() {
    avro_value_decref(&_value);
    avro_value_iface_decref(_iface);
    avro_schema_decref(_schema);
  }
  avro_record_writer(const avro_record_writer&) = delete;
  avro_record_writer& operator=(const avro_record_writer&) = delete;

  avro_value_t& root() { return _value; }

  // The Confluent frame of the value as it now stands.
  std::string framed(int32_t id) {
    size_t size = 0;
    if (avro_value_sizeof(&_value, &size)) avro_fail("sizeof");
    std::string out(5 + size, '\0');
    out[0] = 0;
    for (int b = 0; b < 4; ++b)
      out[1 + b] = static_cast<char>((static_cast<uint32_t>(id) >> (24 - 8 * b)) & 0xff);
    avro_writer_t writer = avro_writer_memory(out.data() + 5, static_cast<int64_t>(size));
    if (avro_value_write(writer, &_value)) avro_fail("write");
    avro_writer_free(writer);
    return out;
  }

 private:
  avro_schema_t _schema = nullptr;
  avro_value_iface_t* _iface = nullptr;
  avro_value_t _value{};
};

avro_value_t avro_field(avro_value_t& record, const char* name) {
  avro_value_t field;
  if (avro_value_get_by_name(&record, name, &field, nullptr)) avro_fail(name);
  return field;
}

// Union branch `branch` of field `name` (0 is null for ["null", T], whose branch 1 is returned).
avro_value_t avro_branch(avro_value_t& record, const char* name, int branch) {
  avro_value_t field = avro_field(record, name);
  avro_value_t chosen;
  if (avro_value_set_branch(&field, branch, &chosen)) avro_fail(name);
  if (branch == 0 && avro_value_set_null(&chosen)) avro_fail(name);
  return chosen;
}

void avro_check(int rc, const char* what) {
  if (rc) avro_fail(what);
}

// The JSON string body of the generator (escapes included) as the text it stands for.
std::string unescape_json_string(simdjson::dom::parser& parser, const std::string& body) {
  const std::string quoted = "\"" + body + "\"";
  std::string_view text;
  if (parser.parse(quoted).get(text)) {
    std::fprintf(stderr, "debezium+avro: cannot unescape %s\n", quoted.c_str());
    std::exit(1);
  }
  return std::string(text);
}

void write_avro_image(avro_value_t& image, const row& r, const std::string& note) {
  avro_value_t v = avro_field(image, "id");
  avro_check(avro_value_set_long(&v, r.id), "id");
  v = avro_branch(image, "customer_id", 1);
  avro_check(avro_value_set_long(&v, r.customer_id), "customer_id");
  v = avro_branch(image, "amount", 1);
  avro_check(avro_value_set_double(&v, std::strtod(r.amount.c_str(), nullptr)), "amount");
  v = avro_branch(image, "tax_rate", 1);
  avro_check(avro_value_set_double(&v, std::strtod(r.tax_rate.c_str(), nullptr)), "tax_rate");
  v = avro_branch(image, "quantity", 1);
  avro_check(avro_value_set_int(&v, static_cast<int32_t>(r.quantity)), "quantity");
  v = avro_branch(image, "status", 1);
  avro_check(avro_value_set_string(&v, r.status.c_str()), "status");
  v = avro_branch(image, "note", 1);
  avro_check(avro_value_set_string(&v, note.c_str()), "note");
  v = avro_branch(image, "is_gift", 1);
  avro_check(avro_value_set_boolean(&v, r.gift ? 1 : 0), "is_gift");
  v = avro_branch(image, "created_at", 1);
  avro_check(avro_value_set_long(&v, r.created_us), "created_at");
  (void)avro_branch(image, "discount_code", 0);
}

// Schema ids: table t's key 2t+1, its value 2t+2 (orders: 1 and 2).
int32_t avro_key_id(size_t table_index) {
  return static_cast<int32_t>(2 * table_index + 1);
}

message_set debezium_avro_messages(const options& o) {
  message_set m{"pg.public.orders", {}, {}, {}, {}, {}, 0};
  std::vector<std::unique_ptr<avro_record_writer>> keys, values;
  for (size_t t = 0; t < o.tables; ++t) {
    const std::string table = t == 0 ? "orders" : "orders_" + std::to_string(t);
    m.avro_schemas[avro_key_id(t)] = debezium_avro_key_schema(table);
    m.avro_schemas[avro_key_id(t) + 1] = debezium_avro_value_schema(table);
    keys.push_back(std::make_unique<avro_record_writer>(m.avro_schemas[avro_key_id(t)]));
    values.push_back(std::make_unique<avro_record_writer>(m.avro_schemas[avro_key_id(t) + 1]));
  }
  simdjson::dom::parser parser;
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  m.keys.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    const size_t t = i % o.tables;  // as row_generator names the table
    const int64_t ts_ms = r.created_us / 1'000;
    const std::string note = unescape_json_string(parser, r.note);
    const char* op = r.op == row_op::insert ? "c" : r.op == row_op::update ? "u" : "d";

    avro_value_t& e = values[t]->root();
    if (r.op == row_op::remove) {
      avro_value_t before = avro_branch(e, "before", 1);
      write_avro_image(before, r, note);
      (void)avro_branch(e, "after", 0);
    } else {
      (void)avro_branch(e, "before", 0);
      avro_value_t after = avro_branch(e, "after", 1);
      write_avro_image(after, r, note);
    }
    avro_value_t source = avro_field(e, "source");
    const int64_t lsn = r.position * 8;
    avro_value_t v = avro_field(source, "version");
    avro_check(avro_value_set_string(&v, "2.5.0.Final"), "version");
    v = avro_field(source, "connector");
    avro_check(avro_value_set_string(&v, "postgresql"), "connector");
    v = avro_field(source, "name");
    avro_check(avro_value_set_string(&v, "pg"), "name");
    v = avro_field(source, "ts_ms");
    avro_check(avro_value_set_long(&v, ts_ms), "ts_ms");
    avro_value_t snapshot = avro_field(source, "snapshot");
    avro_check(avro_value_set_branch(&snapshot, 0, &v), "snapshot");
    avro_check(avro_value_set_string(&v, "false"), "snapshot");
    v = avro_field(source, "db");
    avro_check(avro_value_set_string(&v, "shop"), "db");
    const std::string sequence =
        "[\"" + std::to_string(lsn - 40) + "\",\"" + std::to_string(lsn) + "\"]";
    v = avro_branch(source, "sequence", 1);
    avro_check(avro_value_set_string(&v, sequence.c_str()), "sequence");
    v = avro_field(source, "schema");
    avro_check(avro_value_set_string(&v, "public"), "schema");
    v = avro_field(source, "table");
    avro_check(avro_value_set_string(&v, r.table.c_str()), "table");
    v = avro_branch(source, "txId", 1);
    avro_check(avro_value_set_long(&v, r.position / 3), "txId");
    v = avro_branch(source, "lsn", 1);
    avro_check(avro_value_set_long(&v, lsn), "lsn");
    (void)avro_branch(source, "xmin", 0);
    v = avro_field(e, "op");
    avro_check(avro_value_set_string(&v, op), "op");
    v = avro_branch(e, "ts_ms", 1);
    avro_check(avro_value_set_long(&v, ts_ms + 230), "ts_ms");
    (void)avro_branch(e, "transaction", 0);
    m.values.push_back(values[t]->framed(avro_key_id(t) + 1));

    v = avro_field(keys[t]->root(), "id");
    avro_check(avro_value_set_long(&v, r.id), "key id");
    m.keys.push_back(keys[t]->framed(avro_key_id(t)));
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// datastream+avro: the rows of `datastream` as Datastream's Avro events (seeds 000/002), one
// object container per message (header with the writer schema, one block of one record), each
// written by Avro C's file writer. The payload's decimals are Avro decimals (bytes), created_at
// timestamp-micros, the timestamps of the envelope timestamp-millis, sort_keys [string, long].
// ---------------------------------------------------------------------------------------------

std::string datastream_avro_schema() {
  return R"({"type":"record","name":"orders","namespace":"com.google.cloud.datastream","fields":[)"
         R"({"name":"stream_name","type":"string"},{"name":"read_method","type":"string"},)"
         R"({"name":"object","type":"string"},{"name":"schema_key","type":"string"},)"
         R"({"name":"uuid","type":"string"},)"
         R"({"name":"read_timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},)"
         R"({"name":"source_timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},)"
         R"({"name":"sort_keys","type":{"type":"array","items":["string","long"]}},)"
         R"({"name":"source_metadata","type":{"type":"record","name":"source_metadata","fields":[)"
         R"({"name":"table","type":"string"},{"name":"database","type":"string"},)"
         R"({"name":"primary_keys","type":{"type":"array","items":"string"}},)"
         R"({"name":"log_file","type":["null","string"]},)"
         R"({"name":"log_position","type":["null","long"]},)"
         R"({"name":"change_type","type":["null","string"]},)"
         R"({"name":"is_deleted","type":"boolean"}]}},)"
         R"({"name":"payload","type":{"type":"record","name":"payload","fields":[)"
         R"({"name":"id","type":"long"},{"name":"customer_id","type":["null","long"]},)"
         R"({"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal",)"
         R"("precision":10,"scale":2}]},)"
         R"({"name":"tax_rate","type":["null",{"type":"bytes","logicalType":"decimal",)"
         R"("precision":6,"scale":4}]},)"
         R"({"name":"quantity","type":["null","long"]},{"name":"status","type":["null","string"]},)"
         R"({"name":"note","type":["null","string"]},{"name":"is_gift","type":["null","boolean"]},)"
         R"({"name":"created_at","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},)"
         R"({"name":"discount_code","type":["null","string"]}]}}]})";
}

// A decimal's text ("1234.56") as Avro's decimal bytes: the unscaled value, big-endian two's
// complement, shortest.
std::string avro_decimal_bytes(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c != '.') digits += c;
  int64_t unscaled = std::strtoll(digits.c_str(), nullptr, 10);
  std::string out;
  for (;;) {
    out.insert(out.begin(), static_cast<char>(unscaled & 0xff));
    const int64_t rest = unscaled >> 8;
    const bool sign = (out.front() & 0x80) != 0;
    if ((rest == 0 && !sign) || (rest == -1 && sign)) break;
    unscaled = rest;
  }
  return out;
}

void set_avro_string(avro_value_t& record, const char* name, const std::string& text) {
  avro_value_t v = avro_field(record, name);
  avro_check(avro_value_set_string_len(&v, text.c_str(), text.size() + 1), name);
}

message_set datastream_avro_messages(const options& o) {
  message_set m{"datastream.shop.orders", {}, {}, {}, {}, {}, 0};
  m.container_schema = datastream_avro_schema();
  sluice::testing::avro_container_writer writer(m.container_schema);
  m.container_header_bytes = writer.header_size();
  simdjson::dom::parser parser;
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    const std::string log_file = "mysql-bin.0" + std::to_string(10'000 + r.position / 50'000'000);
    const char* type = r.op == row_op::insert   ? "INSERT"
                       : r.op == row_op::update ? "UPDATE"
                                                : "DELETE";
    avro_value_t& e = writer.value();
    set_avro_string(e, "stream_name", "projects/acme/locations/us-central1/streams/shop");
    set_avro_string(e, "read_method", "mysql-cdc-binlog");
    set_avro_string(e, "object", "shop_" + r.table);
    set_avro_string(e, "schema_key", "7d3c2a1f0e9b8d7c6b5a49382716f5e4d3c2b1a0");
    set_avro_string(
        e, "uuid",
        gen.hex(8) + "-" + gen.hex(4) + "-4" + gen.hex(3) + "-a" + gen.hex(3) + "-" + gen.hex(12));
    avro_value_t v = avro_field(e, "read_timestamp");
    avro_check(avro_value_set_long(&v, (r.created_us + 350'000) / 1'000), "read_timestamp");
    v = avro_field(e, "source_timestamp");
    avro_check(avro_value_set_long(&v, r.created_us / 1'000), "source_timestamp");
    avro_value_t keys = avro_field(e, "sort_keys");
    avro_check(avro_value_reset(&keys), "sort_keys");
    avro_value_t item, branch;
    avro_check(avro_value_append(&keys, &item, nullptr), "sort_keys");
    avro_check(avro_value_set_branch(&item, 0, &branch), "sort_keys");
    avro_check(avro_value_set_string(&branch, log_file.c_str()), "sort_keys");
    avro_check(avro_value_append(&keys, &item, nullptr), "sort_keys");
    avro_check(avro_value_set_branch(&item, 1, &branch), "sort_keys");
    avro_check(avro_value_set_long(&branch, r.position), "sort_keys");

    avro_value_t meta = avro_field(e, "source_metadata");
    set_avro_string(meta, "table", r.table);
    set_avro_string(meta, "database", "shop");
    avro_value_t pks = avro_field(meta, "primary_keys");
    avro_check(avro_value_reset(&pks), "primary_keys");
    avro_check(avro_value_append(&pks, &item, nullptr), "primary_keys");
    avro_check(avro_value_set_string(&item, "id"), "primary_keys");
    v = avro_branch(meta, "log_file", 1);
    avro_check(avro_value_set_string(&v, log_file.c_str()), "log_file");
    v = avro_branch(meta, "log_position", 1);
    avro_check(avro_value_set_long(&v, r.position), "log_position");
    v = avro_branch(meta, "change_type", 1);
    avro_check(avro_value_set_string(&v, type), "change_type");
    v = avro_field(meta, "is_deleted");
    avro_check(avro_value_set_boolean(&v, r.op == row_op::remove), "is_deleted");

    avro_value_t p = avro_field(e, "payload");
    v = avro_field(p, "id");
    avro_check(avro_value_set_long(&v, r.id), "id");
    v = avro_branch(p, "customer_id", 1);
    avro_check(avro_value_set_long(&v, r.customer_id), "customer_id");
    std::string amount = avro_decimal_bytes(r.amount), tax = avro_decimal_bytes(r.tax_rate);
    v = avro_branch(p, "amount", 1);
    avro_check(avro_value_set_bytes(&v, amount.data(), amount.size()), "amount");
    v = avro_branch(p, "tax_rate", 1);
    avro_check(avro_value_set_bytes(&v, tax.data(), tax.size()), "tax_rate");
    v = avro_branch(p, "quantity", 1);
    avro_check(avro_value_set_long(&v, r.quantity), "quantity");
    v = avro_branch(p, "status", 1);
    avro_check(avro_value_set_string(&v, r.status.c_str()), "status");
    const std::string note = unescape_json_string(parser, r.note);
    v = avro_branch(p, "note", 1);
    avro_check(avro_value_set_string(&v, note.c_str()), "note");
    v = avro_branch(p, "is_gift", 1);
    avro_check(avro_value_set_boolean(&v, r.gift ? 1 : 0), "is_gift");
    v = avro_branch(p, "created_at", 1);
    avro_check(avro_value_set_long(&v, r.created_us), "created_at");
    (void)avro_branch(p, "discount_code", 0);
    m.values.push_back(writer.container(writer.record()));
  }
  return m;
}

// The reference of datastream+avro: a bare Avro C read of each container's record (the header,
// of the same length in every message of the set, skipped; the block's count and size read;
// avro_value_read into one reused generic value of the writer schema; no conversion).
class avro_container_bare_pass {
 public:
  explicit avro_container_bare_pass(const message_set& set)
      : _record(set.container_schema), _header(set.container_header_bytes) {
    _reader = avro_reader_memory(nullptr, 0);
  }
  ~avro_container_bare_pass() { avro_reader_free(_reader); }
  avro_container_bare_pass(const avro_container_bare_pass&) = delete;
  avro_container_bare_pass& operator=(const avro_container_bare_pass&) = delete;

  // 0 when read.
  int document(std::string_view bytes, uint64_t& sink) {
    size_t pos = _header;
    for (int varint = 0; varint < 2; ++varint) {  // the block's record count and byte size
      while (pos < bytes.size() && (static_cast<uint8_t>(bytes[pos]) & 0x80))
        ++pos;
      ++pos;
    }
    if (pos + 16 > bytes.size()) return 1;
    avro_reader_memory_set_source(_reader, bytes.data() + pos,
                                  static_cast<int64_t>(bytes.size() - pos - 16));
    if (avro_value_read(_reader, &_record.root())) return 1;
    sink += bytes.size();
    return 0;
  }

 private:
  avro_record_writer _record;  // its generic value, read into
  size_t _header = 0;
  avro_reader_t _reader = nullptr;
};

// The registry of the bench: the writer schemas of a message set, in memory.
class memory_registry : public sluice::schema_source {
 public:
  explicit memory_registry(const std::map<int32_t, std::string>& schemas) {
    for (const auto& [id, text] : schemas) {
      _schemas[id] = std::make_shared<const sluice::registered_schema>(
          sluice::registered_schema{sluice::schema_id{id}, "AVRO", text});
    }
  }
  sluice::result<std::shared_ptr<const sluice::registered_schema>> schema(
      sluice::schema_id id) override {
    auto it = _schemas.find(id.value());
    if (it == _schemas.end()) {
      return sluice::make_error(sluice::error_code::unsupported,
                                "schema id " + std::to_string(id.value()) + " is not here");
    }
    return it->second;
  }

 private:
  std::map<int32_t, std::shared_ptr<const sluice::registered_schema>> _schemas;
};

message_set dsql_messages(const options& o) {
  message_set m{"dsql.public.orders", {}, {}, {}, {}, {}, 0};
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    const int64_t ts_ns = r.created_us * 1'000;
    const char* op = r.op == row_op::remove ? "d" : r.op == row_op::update ? "u" : "c";
    const std::string image = columns_json(r, false, false);
    std::string e = R"({"type":"full","op":")" + std::string(op) + R"(","before":)" +
                    (r.op == row_op::remove ? R"({"id":)" + std::to_string(r.id) + "}" : "null") +
                    R"(,"after":)" + (r.op == row_op::remove ? "null" : image) +
                    R"(,"source":{"version":"1.0","ts_ms":)" + std::to_string(ts_ns / 1'000'000) +
                    R"(,"ts_ns":)" + std::to_string(ts_ns) + R"(,"txId":")" + gen.filler(26) +
                    R"(","schema":"public","table":")" + r.table +
                    R"(","db":"postgres","cluster":"kmabugltfmjdaj2siqr2qbxgju"},"ts_ms":)" +
                    std::to_string(ts_ns / 1'000'000 + 125) + R"(,"ts_ns":)" +
                    std::to_string(ts_ns + 125'483'291) + "}";
    m.values.push_back(std::move(e));
  }
  return m;
}

std::string goldengate_object_metadata(const std::string& table) {
  std::string upper = table;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  return R"({"op_type":"OBJECT_METADATA","qual_table":"SHOP.)" + upper +
         R"(","columns":{)"
         R"("ID":{"type":"number","null":false,"key":true},)"
         R"("CUSTOMER_ID":{"type":"number","null":true,"key":false},)"
         R"("AMOUNT":{"type":"number","null":true,"key":false},)"
         R"("TAX_RATE":{"type":"number","null":true,"key":false},)"
         R"("QUANTITY":{"type":"number","null":true,"key":false},)"
         R"("STATUS":{"type":"string","null":true,"key":false},)"
         R"("NOTE":{"type":"string","null":true,"key":false},)"
         R"("IS_GIFT":{"type":"boolean","null":true,"key":false},)"
         R"("CREATED_AT":{"type":"timestamp","null":true,"key":false},)"
         R"("DISCOUNT_CODE":{"type":"string","null":true,"key":false}}})";
}

message_set goldengate_messages(const options& o) {
  message_set m{"goldengate.shop.orders", {}, {}, {}, {}, {}, 0};
  for (size_t t = 0; t < o.tables; ++t) {
    m.primer.push_back(
        goldengate_object_metadata(t == 0 ? "orders" : "orders_" + std::to_string(t)));
  }
  row_generator gen(o.tables);
  m.values.reserve(o.events);
  for (size_t i = 0; i < o.events; ++i) {
    const row r = gen.next(i);
    std::string upper = r.table;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    const std::string image = columns_json(r, true, false);
    const char* op = r.op == row_op::insert   ? "INSERT"
                     : r.op == row_op::update ? "UPDATE"
                                              : "DELETE";
    std::string images;
    if (r.op == row_op::insert) images = R"("after":)" + image;
    if (r.op == row_op::update) {
      images = R"("before":{"ID":)" + std::to_string(r.id) + R"(,"STATUS":"NEW"},"after":)" + image;
    }
    if (r.op == row_op::remove) images = R"("before":)" + image;
    std::string e = R"({"qual_table":"SHOP.)" + upper + R"(","op_type":")" + op + R"(","op_ts":")" +
                    iso(r.created_us, 6, true) + R"(","xid":")" + std::to_string(r.position / 3) +
                    "." + std::to_string(r.position % 97) + R"(","pos":"G-)" + gen.filler(36) +
                    "=" + std::to_string(r.position) + R"(","csn":")" +
                    std::to_string(r.position * 4) + R"(",)" + images + "}";
    m.values.push_back(std::move(e));
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// The reference: a bare On-Demand pass that touches every field.
// ---------------------------------------------------------------------------------------------

simdjson::error_code touch(simdjson::ondemand::value v, uint64_t& sink) {
  using simdjson::ondemand::json_type;
  json_type type;
  if (auto code = v.type().get(type)) return code;
  switch (type) {
    case json_type::object: {
      simdjson::ondemand::object object;
      if (auto code = v.get_object().get(object)) return code;
      for (auto member : object) {
        simdjson::ondemand::field field;
        if (auto code = std::move(member).get(field)) return code;
        std::string_view key;
        if (auto code = field.unescaped_key().get(key)) return code;
        sink += key.size();
        if (auto code = touch(field.value(), sink)) return code;
      }
      return simdjson::SUCCESS;
    }
    case json_type::array: {
      simdjson::ondemand::array array;
      if (auto code = v.get_array().get(array)) return code;
      for (auto element : array) {
        simdjson::ondemand::value child;
        if (auto code = std::move(element).get(child)) return code;
        if (auto code = touch(child, sink)) return code;
      }
      return simdjson::SUCCESS;
    }
    case json_type::number:
      sink += v.raw_json_token().size();
      return simdjson::SUCCESS;
    case json_type::string: {
      std::string_view s;
      if (auto code = v.get_string().get(s)) return code;
      sink += s.size();
      return simdjson::SUCCESS;
    }
    case json_type::boolean: {
      bool b = false;
      if (auto code = v.get_bool().get(b)) return code;
      sink += b;
      return simdjson::SUCCESS;
    }
    case json_type::null: {
      bool is_null = false;
      if (auto code = v.is_null().get(is_null)) return code;
      sink += is_null;
      return simdjson::SUCCESS;
    }
  }
  return simdjson::SUCCESS;
}

// One parser and one padded buffer, like a decoder: the bytes are copied in (Kafka's buffers
// have no padding), parsed and walked.
class bare_pass {
 public:
  simdjson::error_code document(std::string_view bytes, uint64_t& sink) {
    const simdjson::padded_string_view padded = _buffer.assign(bytes);
    simdjson::ondemand::document doc;
    if (auto code = _parser.iterate(padded).get(doc)) return code;
    simdjson::ondemand::object root;
    if (auto code = doc.get_object().get(root)) return code;
    for (auto member : root) {
      simdjson::ondemand::field field;
      if (auto code = std::move(member).get(field)) return code;
      std::string_view key;
      if (auto code = field.unescaped_key().get(key)) return code;
      sink += key.size();
      if (auto code = touch(field.value(), sink)) return code;
    }
    return simdjson::SUCCESS;
  }

 private:
  simdjson::ondemand::parser _parser;
  sluice::padded_buffer _buffer;
};

// The Avro reference (debezium+avro): a bare Avro C read of the same bytes, the Confluent
// header's schema id looked up, the body read with avro_value_read into one reused generic
// value of that writer schema; no conversion, nothing looked at.
class avro_bare_pass {
 public:
  explicit avro_bare_pass(const std::map<int32_t, std::string>& schemas) {
    for (const auto& [id, text] : schemas) {
      slot s;
      if (avro_schema_from_json_length(text.data(), text.size(), &s.schema)) avro_fail("schema");
      s.iface = avro_generic_class_from_schema(s.schema);
      if (!s.iface || avro_generic_value_new(s.iface, &s.value)) avro_fail("generic value");
      _slots.emplace(id, s);
    }
    _reader = avro_reader_memory(nullptr, 0);
  }
  ~avro_bare_pass() {
    avro_reader_free(_reader);
    for (auto& [id, s] : _slots) {
      avro_value_decref(&s.value);
      avro_value_iface_decref(s.iface);
      avro_schema_decref(s.schema);
    }
  }
  avro_bare_pass(const avro_bare_pass&) = delete;
  avro_bare_pass& operator=(const avro_bare_pass&) = delete;

  // 0 when read.
  int document(std::string_view bytes, uint64_t& sink) {
    if (bytes.size() < 5 || bytes[0] != 0) return 1;
    uint32_t id = 0;
    for (int b = 1; b < 5; ++b)
      id = id << 8 | static_cast<uint8_t>(bytes[static_cast<size_t>(b)]);
    auto it = _slots.find(static_cast<int32_t>(id));
    if (it == _slots.end()) return 1;
    avro_reader_memory_set_source(_reader, bytes.data() + 5,
                                  static_cast<int64_t>(bytes.size() - 5));
    if (avro_value_read(_reader, &it->second.value)) return 1;
    sink += bytes.size();
    return 0;
  }

 private:
  struct slot {
    avro_schema_t schema = nullptr;
    avro_value_iface_t* iface = nullptr;
    avro_value_t value{};
  };
  std::map<int32_t, slot> _slots;
  avro_reader_t _reader = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Timed passes
// ---------------------------------------------------------------------------------------------

// The timed decoder loop (noinline: callgrind --toggle-collect='*decode_pass*' isolates it).
[[gnu::noinline]] size_t decode_pass(sluice::decoder& d, const std::vector<raw_message>& msgs,
                                     sluice::decode_output& out, size_t clear_every) {
  size_t changes = 0, since_clear = 0;
  for (const raw_message& m : msgs) {
    if (++since_clear == clear_every) {
      changes += out.changes.size();
      out.clear();
      since_clear = 0;
    }
    if (d.decode(m, out)) std::abort();  // validated before timing
  }
  changes += out.changes.size();
  out.clear();
  return changes;
}

template <class bare_reader>
[[gnu::noinline]] uint64_t bare_pass_over(bare_reader& bare, const std::vector<raw_message>& msgs) {
  uint64_t sink = 0;
  for (const raw_message& m : msgs) {
    if (m.key && bare.document(*m.key, sink)) std::abort();
    if (bare.document(*m.value, sink)) std::abort();
  }
  return sink;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct figures {
  std::string format;
  double bytes_per_event = 0;
  double best = 0, med = 0;            // decoder events/s
  double bare_best = 0, bare_med = 0;  // bare events/s
  double allocs_per_event = 0, alloc_bytes_per_event = 0;
};

using decoder_factory = std::function<std::unique_ptr<sluice::decoder>(sluice::table_catalog&)>;

template <class bare_reader>
figures timed(const options& o, const std::string& format, const std::vector<raw_message>& msgs,
              size_t bytes, sluice::decoder& decoder, sluice::decode_output& out,
              bare_reader& bare);

figures run(const options& o, const std::string& format, const message_set& set,
            const decoder_factory& make, const std::vector<std::string>& configured_keys = {}) {
  sluice::table_catalog catalog;
  for (const std::string& table : configured_keys)
    catalog.configure_key(table, {"id"});
  std::unique_ptr<sluice::decoder> decoder = make(catalog);

  std::vector<raw_message> msgs(set.values.size());
  size_t bytes = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    raw_message& m = msgs[i];
    m.topic = set.topic;
    m.partition = sluice::partition_id(static_cast<int32_t>(i % 6));
    m.offset = sluice::kafka_offset(static_cast<int64_t>(i));
    m.timestamp = sluice::timestamp_ns(1'705'318'200'000'000'000 + static_cast<int64_t>(i));
    m.value = set.values[i];
    bytes += set.values[i].size();
    if (!set.keys.empty()) {
      m.key = set.keys[i];
      bytes += set.keys[i].size();
    }
  }

  // Untimed: the metadata records, then every message once (each must decode to one keyed change).
  sluice::decode_output out;
  for (size_t i = 0; i < set.primer.size(); ++i) {
    raw_message m;
    m.topic = set.topic;
    m.value = set.primer[i];
    if (auto err = decoder->decode(m, out)) {
      std::fprintf(stderr, "%s: primer %zu: %s\n", format.c_str(), i, err->message.c_str());
      std::exit(1);
    }
    out.clear();
  }
  for (size_t i = 0; i < msgs.size(); ++i) {
    out.clear();
    if (auto err = decoder->decode(msgs[i], out)) {
      std::fprintf(stderr, "%s: event %zu does not decode: %s\n%s\n", format.c_str(), i,
                   err->message.c_str(), set.values[i].c_str());
      std::exit(1);
    }
    if (out.changes.size() != 1 || out.changes[0].key.empty()) {
      std::fprintf(stderr, "%s: event %zu decoded into %zu changes (or one without a key)\n",
                   format.c_str(), i, out.changes.size());
      std::exit(1);
    }
  }
  out.clear();
  if (!set.container_schema.empty()) {
    avro_container_bare_pass bare(set);
    return timed(o, format, msgs, bytes, *decoder, out, bare);
  }
  if (!set.avro_schemas.empty()) {
    avro_bare_pass bare(set.avro_schemas);
    return timed(o, format, msgs, bytes, *decoder, out, bare);
  }
  bare_pass bare;
  return timed(o, format, msgs, bytes, *decoder, out, bare);
}

template <class bare_reader>
figures timed(const options& o, const std::string& format, const std::vector<raw_message>& msgs,
              size_t bytes, sluice::decoder& decoder, sluice::decode_output& out,
              bare_reader& bare) {
  (void)bare_pass_over(bare, msgs);  // warm

  std::vector<double> decode_s, bare_s;
  uint64_t allocations = 0, allocated = 0;
  for (int pass = 0; pass < o.passes; ++pass) {
    g_allocations = g_allocated_bytes = 0;
    g_counting = true;
    double t0 = thread_seconds();
    const size_t changes = decode_pass(decoder, msgs, out, o.clear_every);
    double t1 = thread_seconds();
    g_counting = false;
    allocations += g_allocations;
    allocated += g_allocated_bytes;
    if (changes != msgs.size()) std::abort();
    decode_s.push_back(t1 - t0);

    t0 = thread_seconds();
    const uint64_t sink = bare_pass_over(bare, msgs);
    t1 = thread_seconds();
    if (sink == 0) std::abort();
    bare_s.push_back(t1 - t0);
  }

  const double n = static_cast<double>(msgs.size());
  const double events = n * o.passes;
  figures f;
  f.format = format;
  f.bytes_per_event = static_cast<double>(bytes) / n;
  f.best = n / *std::min_element(decode_s.begin(), decode_s.end());
  f.med = n / median(decode_s);
  f.bare_best = n / *std::min_element(bare_s.begin(), bare_s.end());
  f.bare_med = n / median(bare_s);
  f.allocs_per_event = static_cast<double>(allocations) / events;
  f.alloc_bytes_per_event = static_cast<double>(allocated) / events;
  return f;
}

// The table; with --tsv, also one tab-separated line per format (for run_decode_bench.sh).
void print(const options& o, const std::vector<figures>& all) {
  if (o.tsv) {
    for (const figures& f : all) {
      std::printf("tsv\t%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.2f\t%.0f\t%.0f\t%.0f\t%.3f\t%.3f\n",
                  f.format.c_str(), f.bytes_per_event, f.best, f.med,
                  f.best * f.bytes_per_event / 1e6, f.med * f.bytes_per_event / 1e6,
                  f.allocs_per_event, f.alloc_bytes_per_event, f.bare_best, f.bare_med,
                  f.best / f.bare_best, f.med / f.bare_med);
    }
  }
  std::printf(
      "decode_bench: %zu distinct events per format, %d timed passes each, one thread, "
      "%zu table(s), decode_output cleared every %zu message(s); best / median pass\n",
      o.events, o.passes, o.tables, o.clear_every);
  std::printf("%-16s %6s %21s %15s %8s %8s %21s %13s\n", "format", "B/ev", "events/s best/med",
              "MB/s best/med", "allocs", "alloc B", "bare events/s b/m", "ratio b/m");
  for (const figures& f : all) {
    std::printf("%-16s %6.0f %10.0f %10.0f %7.1f %7.1f %8.2f %8.0f %10.0f %10.0f %6.2f %6.2f\n",
                f.format.c_str(), f.bytes_per_event, f.best, f.med,
                f.best * f.bytes_per_event / 1e6, f.med * f.bytes_per_event / 1e6,
                f.allocs_per_event, f.alloc_bytes_per_event, f.bare_best, f.bare_med,
                f.best / f.bare_best, f.med / f.bare_med);
  }
  std::printf(
      "(allocs, alloc B: operator new calls and bytes per event in the timed decoder "
      "passes; ratio: decoder events/s / bare events/s)\n");
}

// debezium+avro is the debezium+schema rows in Avro: for the first events, each Avro message
// must decode to the change its JSON twin decodes to (op, key, after image: names, kinds and
// texts, numbers of the double columns compared as doubles; source transaction and timestamp).
void check_avro_matches_json(const options& o, const message_set& avro,
                             const std::shared_ptr<sluice::schema_source>& registry) {
  options few = o;
  few.events = std::min<size_t>(o.events, 400);
  const message_set json = debezium_messages(few, true);
  sluice::table_catalog json_catalog, avro_catalog;
  sluice::debezium_decoder json_decoder(json_catalog, sluice::debezium_options{});
  sluice::debezium_options avro_options;
  avro_options.registry = registry;
  sluice::debezium_decoder avro_decoder(avro_catalog, avro_options);
  const auto decode = [](sluice::decoder& d, const message_set& set, size_t i,
                         sluice::decode_output& out) {
    raw_message m;
    m.topic = set.topic;
    m.offset = sluice::kafka_offset(static_cast<int64_t>(i));
    m.key = set.keys[i];
    m.value = set.values[i];
    if (auto err = d.decode(m, out)) {
      std::fprintf(stderr, "debezium+avro check: event %zu does not decode: %s\n", i,
                   err->message.c_str());
      std::exit(1);
    }
    if (out.changes.size() != 1) {
      std::fprintf(stderr, "debezium+avro check: event %zu gave %zu changes\n", i,
                   out.changes.size());
      std::exit(1);
    }
    return &out.changes[0];
  };
  for (size_t i = 0; i < few.events; ++i) {
    sluice::decode_output json_out, avro_out;
    const sluice::change& j = *decode(json_decoder, json, i, json_out);
    const sluice::change& a = *decode(avro_decoder, avro, i, avro_out);
    bool same = j.op == a.op && j.key.canonical == a.key.canonical &&
                j.key.columns == a.key.columns && j.after.size() == a.after.size() &&
                j.source.tx == a.source.tx && j.source.source_ts == a.source.source_ts;
    for (size_t c = 0; same && c < j.after.size(); ++c) {
      const sluice::column_value& x = j.after[c];
      const sluice::column_value& y = a.after[c];
      // A double column: the JSON keeps the generator's text ("55662.50"), Avro's double is
      // printed shortest ("55662.5"); the same number to PostgreSQL.
      const bool same_text = x.v.text == y.v.text || (x.v.kind == sluice::value_kind::number &&
                                                      std::strtod(x.v.text.c_str(), nullptr) ==
                                                          std::strtod(y.v.text.c_str(), nullptr));
      same = x.name == y.name && x.v.kind == y.v.kind && same_text;
      if (!same) {
        std::fprintf(stderr,
                     "debezium+avro check: event %zu column %s: json %d '%s', avro %d '%s'\n", i,
                     x.name.c_str(), static_cast<int>(x.v.kind), x.v.text.c_str(),
                     static_cast<int>(y.v.kind), y.v.text.c_str());
      }
    }
    if (!same) {
      std::fprintf(stderr,
                   "debezium+avro check: event %zu differs from its debezium+schema twin "
                   "(op %d/%d, key %s/%s, %zu/%zu columns, tx %s/%s)\n",
                   i, static_cast<int>(j.op), static_cast<int>(a.op), j.key.canonical.c_str(),
                   a.key.canonical.c_str(), j.after.size(), a.after.size(), j.source.tx.c_str(),
                   a.source.tx.c_str());
      std::exit(1);
    }
  }
}

// datastream+avro is the datastream rows in Avro: for the first events, each container must
// decode to the change its JSON twin decodes to (op, key, after image: names, kinds, texts;
// created_at compared as a time: the JSON's "2024-01-15T11:30:00.123450" is the Avro
// timestamp-micros "2024-01-15T11:30:00.12345Z"; source timestamp).
void check_datastream_avro_matches_json(const options& o, const message_set& avro) {
  // "…:00.016510" (JSON) and "…:00.01651Z" (timestamp-micros, trailing zeros dropped).
  const auto same_time = [](std::string json, std::string avro) {
    while (json.find('.') != std::string::npos && (json.back() == '0' || json.back() == '.'))
      json.pop_back();
    return json + "Z" == avro;
  };
  options few = o;
  few.events = std::min<size_t>(o.events, 400);
  const message_set json = datastream_messages(few);
  sluice::table_catalog json_catalog, avro_catalog;
  sluice::datastream_decoder json_decoder(json_catalog, sluice::datastream_options{});
  sluice::datastream_decoder avro_decoder(avro_catalog, sluice::datastream_options{});
  for (size_t i = 0; i < few.events; ++i) {
    sluice::decode_output json_out, avro_out;
    raw_message m;
    m.topic = json.topic;
    m.value = json.values[i];
    const auto j_err = json_decoder.decode(m, json_out);
    m.value = avro.values[i];
    const auto a_err = avro_decoder.decode(m, avro_out);
    if (j_err || a_err || json_out.changes.size() != 1 || avro_out.changes.size() != 1) {
      std::fprintf(stderr, "datastream+avro check: event %zu: %s / %s\n", i,
                   j_err ? j_err->message.c_str() : "json ok",
                   a_err ? a_err->message.c_str() : "avro ok");
      std::exit(1);
    }
    const sluice::change& j = json_out.changes[0];
    const sluice::change& a = avro_out.changes[0];
    bool same = j.op == a.op && j.key.canonical == a.key.canonical &&
                j.after.size() == a.after.size() && j.source.source_ts == a.source.source_ts;
    for (size_t c = 0; same && c < j.after.size(); ++c) {
      const sluice::column_value& x = j.after[c];
      const sluice::column_value& y = a.after[c];
      same = x.name == y.name && x.v.kind == y.v.kind &&
             (x.v.text == y.v.text || (x.name == "created_at" && same_time(x.v.text, y.v.text)));
      if (!same) {
        std::fprintf(stderr, "datastream+avro check: event %zu column %s: json '%s', avro '%s'\n",
                     i, x.name.c_str(), x.v.text.c_str(), y.v.text.c_str());
      }
    }
    if (!same) {
      std::fprintf(stderr, "datastream+avro check: event %zu differs from its JSON twin\n", i);
      std::exit(1);
    }
  }
}

std::vector<std::string> dsql_tables(size_t n) {
  std::vector<std::string> out;
  for (size_t t = 0; t < n; ++t)
    out.push_back(t == 0 ? "public.orders" : "public.orders_" + std::to_string(t));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const auto wanted = [&o](const char* format) { return o.only.empty() || o.only == format; };
  std::vector<figures> all;
  if (wanted("datastream")) {
    all.push_back(run(o, "datastream", datastream_messages(o), [](sluice::table_catalog& c) {
      return std::make_unique<sluice::datastream_decoder>(c, sluice::datastream_options{});
    }));
  }
  if (wanted("datastream+avro")) {
    message_set set = datastream_avro_messages(o);
    check_datastream_avro_matches_json(o, set);
    all.push_back(run(o, "datastream+avro", set, [](sluice::table_catalog& c) {
      return std::make_unique<sluice::datastream_decoder>(c, sluice::datastream_options{});
    }));
  }
  const auto debezium = [](sluice::table_catalog& c) {
    return std::make_unique<sluice::debezium_decoder>(c, sluice::debezium_options{});
  };
  if (wanted("debezium")) all.push_back(run(o, "debezium", debezium_messages(o, false), debezium));
  if (wanted("debezium+schema")) {
    all.push_back(run(o, "debezium+schema", debezium_messages(o, true), debezium));
  }
  if (wanted("debezium+avro")) {
    message_set set = debezium_avro_messages(o);
    auto registry = std::make_shared<memory_registry>(set.avro_schemas);
    check_avro_matches_json(o, set, registry);
    all.push_back(run(o, "debezium+avro", set, [registry](sluice::table_catalog& c) {
      sluice::debezium_options options;
      options.registry = registry;
      return std::make_unique<sluice::debezium_decoder>(c, options);
    }));
  }
  if (wanted("dsql")) {
    all.push_back(run(
        o, "dsql", dsql_messages(o),
        [](sluice::table_catalog& c) {
          return std::make_unique<sluice::dsql_decoder>(c, sluice::dsql_options{});
        },
        dsql_tables(o.tables)));
  }
  if (wanted("goldengate")) {
    all.push_back(run(o, "goldengate", goldengate_messages(o), [](sluice::table_catalog& c) {
      return std::make_unique<sluice::goldengate_decoder>(c, sluice::goldengate_options{});
    }));
  }
  if (all.empty()) {
    std::fprintf(stderr,
                 "no format named %s (datastream, datastream+avro, debezium, debezium+schema, "
                 "debezium+avro, dsql, goldengate)\n",
                 o.only.c_str());
    return 2;
  }
  print(o, all);
  return 0;
}
