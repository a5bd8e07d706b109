#include "sinks/mariadb/state/dead_letter_writer.h"

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>

#include "sinks/plan/digest.h"
#include "sinks/plan/json_text.h"

namespace sluice::mdb {
namespace {

constexpr size_t max_reason_bytes = 65'535;  // `text`
constexpr size_t max_name_chars = 64;        // target_schema, target_table varchar(64)
constexpr size_t row_overhead = 512;         // per row: indicators, lengths, the short columns

// The longest prefix of at most `bytes` bytes that does not end inside a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, size_t bytes) {
  if (s.size() <= bytes) return s;
  size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80)
    --end;
  return s.substr(0, end);
}

// The first `chars` characters of UTF-8 text.
std::string_view utf8_chars(std::string_view s, size_t chars) {
  size_t at = 0, n = 0;
  while (at < s.size() && n < chars) {
    ++at;
    while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80)
      ++at;
    ++n;
  }
  return s.substr(0, at);
}

std::string random_marker_hex() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 2; ++i) {
    uint64_t v = gen();
    for (int j = 0; j < 16; ++j, v >>= 4)
      out.push_back(digits[v & 0xf]);
  }
  return out;
}

// One letter as it is stored: owning, cut to fit.
struct row {
  std::string reason;
  std::string kind;
  std::optional<std::string> schema, table;
  std::optional<std::string> topic, partition, offset, ts_us;
  std::optional<std::string> key, value, headers;

  size_t size() const {
    size_t n = row_overhead + reason.size() + kind.size();
    for (const auto* s :
         {&schema, &table, &topic, &partition, &offset, &ts_us, &key, &value, &headers}) {
      if (*s) n += (*s)->size();
    }
    return n;
  }
};

std::string cut_note(const char* what, size_t kept, std::string_view whole) {
  return std::string(what) + " cut to " + std::to_string(kept) + " of " +
         std::to_string(whole.size()) + " bytes, SHA-256 of the whole " + sha256_hex(whole);
}

row stored_row(const dead_letter& d, size_t budget) {
  row r;
  r.kind = to_string(d.kind);
  // The reason is text: keep it storable whatever the source gave.
  r.reason = is_storable_text(d.reason) ? d.reason : std::string("(reason not UTF-8)");
  std::vector<std::string> notes;
  if (!d.target_table.empty()) {
    r.schema = std::string(utf8_chars(d.target_schema, max_name_chars));
    r.table = std::string(utf8_chars(d.target_table, max_name_chars));
    if (r.schema->size() < d.target_schema.size() || r.table->size() < d.target_table.size())
      notes.push_back("target name cut to 64 characters: " + d.target_schema + "." +
                      d.target_table);
  }
  if (!d.origin.topic.empty()) {
    // Not from one message (a merged row the database refused): no origin.
    r.topic = d.origin.topic;
    r.partition = std::to_string(d.origin.partition.value());
    r.offset = std::to_string(d.origin.offset.value());
    const int64_t us = d.origin.timestamp.value() / 1000;
    // datetime(6) holds years 1000 to 9999: a timestamp outside is none.
    if (us >= 0 && us < 253'402'300'800'000'000) r.ts_us = std::to_string(us);
  }
  if (d.key) r.key = *d.key;
  if (d.value) r.value = *d.value;
  if (!d.headers.empty()) r.headers = headers_json(d.headers);

  // Too big for one packet: what must go, goes, in order, and the reason says so.
  const size_t reason_room = std::min(max_reason_bytes, budget / 4);
  const auto over = [&] { return r.size() - r.reason.size() + reason_room + 1024 > budget; };
  if (over() && r.headers) {
    notes.push_back("headers dropped (" + std::to_string(r.headers->size()) + " bytes of JSON)");
    r.headers.reset();
  }
  const auto cut = [&](std::optional<std::string>& field, const char* what,
                       const std::optional<std::string>& whole) {
    if (!over() || !field) return;
    // The reason is counted at its largest: it ends at most reason_room long, notes included.
    const size_t others = r.size() - field->size() - r.reason.size() + reason_room;
    const size_t keep = budget > others + 1024 ? budget - others - 1024 : 0;
    notes.push_back(cut_note(what, keep, *whole));
    field->resize(keep);
  };
  cut(r.value, "value", d.value);
  cut(r.key, "key", d.key);
  if (!notes.empty()) {
    std::string note = " [stored cut to fit max_allowed_packet:";
    for (const std::string& n : notes)
      note += " " + n + ";";
    note.back() = ']';
    r.reason = std::string(utf8_prefix(r.reason,
                                       reason_room > note.size() ? reason_room - note.size() : 0)) +
               note;
  }
  if (r.reason.size() > reason_room) {
    r.reason = std::string(utf8_prefix(r.reason, reason_room - 32)) + " [reason cut]";
  }
  return r;
}

param opt(const std::optional<std::string>& s) {
  return s ? param::text(*s) : param::null();
}
param opt_bytes(const std::optional<std::string>& s) {
  return s ? param::bytes(*s) : param::null();
}

}  // namespace

dead_letter_writer::dead_letter_writer(const state_schema& schema, std::string connector,
                                       size_t packet_limit)
    : _table(schema.table("dead_letters")),
      _connector(std::move(connector)),
      _packet_limit(packet_limit) {}

size_t dead_letter_writer::letter_budget(size_t packet_limit) {
  // The statement's text and the packet's framing, with room to spare.
  return packet_limit - std::min<size_t>(packet_limit / 4, 64 * 1024);
}

size_t dead_letter_writer::write(connection& conn, const std::vector<const dead_letter*>& letters,
                                 std::vector<int64_t>* ids) const {
  if (ids) ids->clear();
  if (letters.empty()) return 0;
  if (_packet_limit == 0) {
    const result r = conn.query("SELECT @@max_allowed_packet");
    _packet_limit = std::stoull(r.at(0, 0).value_or("1048576"));
  }
  const size_t budget = letter_budget(_packet_limit);
  std::vector<row> rows;
  rows.reserve(letters.size());
  for (const dead_letter* d : letters)
    rows.push_back(stored_row(*d, budget));
  const std::string marker = random_marker_hex();
  const std::string sql =
      "INSERT INTO " + _table +
      " (connector, reason, kind, target_schema, target_table, topic, `partition`, "
      "kafka_offset, kafka_timestamp, `key`, value, headers, created_at, batch_marker) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
      "TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED), '1970-01-01 00:00:00'), ?, ?, ?, "
      "UTC_TIMESTAMP(6), UNHEX(?))";
  constexpr size_t width = 13;
  size_t written = 0;
  std::vector<param> cells;
  size_t bytes = 0;
  const auto flush = [&] {
    if (cells.empty()) return;
    written += conn.exec_bulk(sql, width, cells);
    cells.clear();
    bytes = 0;
  };
  for (const row& r : rows) {
    // Executions of at most one packet each, in the letters' order.
    if (bytes + r.size() > budget) flush();
    bytes += r.size();
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(r.reason));
    cells.push_back(param::text(r.kind));
    cells.push_back(opt(r.schema));
    cells.push_back(opt(r.table));
    cells.push_back(opt(r.topic));
    cells.push_back(opt(r.partition));
    cells.push_back(opt(r.offset));
    cells.push_back(opt(r.ts_us));
    cells.push_back(opt_bytes(r.key));
    cells.push_back(opt_bytes(r.value));
    cells.push_back(opt(r.headers));
    cells.push_back(param::text(marker));
  }
  flush();
  if (ids) {
    // Ids grow with each row of a session's executions, so id order is the letters' order.
    const result r =
        conn.query("SELECT id FROM " + _table + " WHERE batch_marker = UNHEX(?) ORDER BY id",
                   std::vector{param::text(marker)});
    if (r.size() != letters.size()) {
      throw std::logic_error("dead letters: wrote " + std::to_string(letters.size()) +
                             " but read back " + std::to_string(r.size()) + " ids");
    }
    ids->reserve(r.size());
    for (const auto& row : r.rows)
      ids->push_back(std::stoll(*row.at(0)));
  }
  return static_cast<size_t>(written);
}

}  // namespace sluice::mdb
