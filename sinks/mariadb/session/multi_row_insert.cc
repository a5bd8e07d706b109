#include "sinks/mariadb/session/multi_row_insert.h"

#include <algorithm>
#include <bit>
#include <cctype>

namespace sluice::mdb {
namespace {

// The index just past the quoted text opening at `i` ('…', "…" or `…`; a doubled quote or a
// backslash inside '…' and "…" escapes). npos when it never closes.
size_t skip_quoted(std::string_view s, size_t i) {
  const char q = s[i];
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (q != '`' && s[j] == '\\') {
      ++j;
    } else if (s[j] == q) {
      if (j + 1 < s.size() && s[j + 1] == q) {
        ++j;
        continue;
      }
      return j + 1;
    }
  }
  return std::string_view::npos;
}

bool quote(char c) {
  return c == '\'' || c == '"' || c == '`';
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Whether `word` (upper case) starts at `i` as a whole word.
bool word_at(std::string_view s, size_t i, std::string_view word) {
  if (i + word.size() > s.size() || (i > 0 && word_char(s[i - 1]))) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (std::toupper(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  }
  return i + word.size() == s.size() || !word_char(s[i + word.size()]);
}

// The placeholders outside quoted text; npos when a quote never closes.
size_t placeholders(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    if (quote(s[i])) {
      i = skip_quoted(s, i);
      if (i == std::string_view::npos) return std::string_view::npos;
      continue;
    }
    if (s[i] == '?') ++n;
    ++i;
  }
  return n;
}

// The bytes of a length-encoded integer of the client/server protocol.
size_t lenenc_size(size_t n) {
  return n < 251 ? 1 : n < 65536 ? 3 : n < 16777216 ? 4 : 9;
}

}  // namespace

std::optional<values_row> split_values_row(std::string_view sql) {
  size_t start = 0;
  while (start < sql.size() && std::isspace(static_cast<unsigned char>(sql[start])))
    ++start;
  if (!word_at(sql, start, "INSERT") && !word_at(sql, start, "REPLACE")) return std::nullopt;
  // The first VALUES (or VALUE) outside quotes and parentheses, then its row.
  size_t depth = 0, open = std::string_view::npos;
  for (size_t i = start; i < sql.size() && open == std::string_view::npos;) {
    const char c = sql[i];
    if (quote(c)) {
      i = skip_quoted(sql, i);
      if (i == std::string_view::npos) return std::nullopt;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth == 0 && (word_at(sql, i, "VALUES") || word_at(sql, i, "VALUE"))) {
      size_t j = i + (word_at(sql, i, "VALUES") ? 6 : 5);
      while (j < sql.size() && std::isspace(static_cast<unsigned char>(sql[j])))
        ++j;
      if (j < sql.size() && sql[j] == '(') {
        open = j;
        break;
      }
    }
    ++i;
  }
  if (open == std::string_view::npos) return std::nullopt;
  size_t close = std::string_view::npos;
  depth = 0;
  for (size_t i = open; i < sql.size();) {
    if (quote(sql[i])) {
      i = skip_quoted(sql, i);
      if (i == std::string_view::npos) return std::nullopt;
      continue;
    }
    if (sql[i] == '(') ++depth;
    if (sql[i] == ')' && --depth == 0) {
      close = i;
      break;
    }
    ++i;
  }
  if (close == std::string_view::npos) return std::nullopt;
  values_row v{std::string(sql.substr(0, open)), std::string(sql.substr(open, close + 1 - open)),
               std::string(sql.substr(close + 1))};
  const size_t in_row = placeholders(v.row);
  if (in_row == 0 || in_row == std::string_view::npos || placeholders(v.head) != 0 ||
      placeholders(v.tail) != 0) {
    return std::nullopt;
  }
  return v;
}

std::string multi_row_sql(const values_row& v, size_t rows) {
  std::string out;
  out.reserve(v.head.size() + rows * (v.row.size() + 2) + v.tail.size());
  out += v.head;
  for (size_t i = 0; i < rows; ++i) {
    if (i > 0) out += ", ";
    out += v.row;
  }
  out += v.tail;
  return out;
}

size_t rows_in_chunk(size_t width, std::span<const param> cells, size_t first,
                     size_t packet_limit) {
  if (width == 0) return 0;
  const size_t rows = cells.size() / width;
  if (first >= rows) return 0;
  const size_t most = std::min(rows - first, std::max<size_t>(1, max_placeholders / width));
  // COM_STMT_EXECUTE: packet header 4, command 1, statement id 4, flags 1, iterations 4,
  // "types follow" 1; per parameter its type (2 bytes) and a bit of the NULL bitmap; per
  // value its length and bytes. 64 bytes to spare.
  size_t bytes = 4 + 1 + 4 + 1 + 4 + 1 + 64;
  size_t n = 0;
  while (n < most) {
    size_t row = 2 * width;
    for (size_t c = 0; c < width; ++c) {
      const param& p = cells[(first + n) * width + c];
      if (p.type != param::kind::null) row += lenenc_size(p.data.size()) + p.data.size();
    }
    const size_t bitmap = ((n + 1) * width + 7) / 8;
    if (n > 0 && bytes + row + bitmap > packet_limit) break;
    bytes += row;
    ++n;
  }
  return std::bit_floor(n);
}

}  // namespace sluice::mdb
