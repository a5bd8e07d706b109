#include "connector/config/env_substitution.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "connector/config/did_you_mean.h"

namespace sluice {
namespace {

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || !is_name_start(name[0])) return false;
  for (char c : name) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

constexpr std::string_view file_prefix = "file:";

// ${file:PATH}: appends the file's content, or an error naming the reference.
void substitute_file(std::string_view reference, std::string_view path, substitution& out) {
  if (path.empty() || path.front() != '/') {
    out.errors.push_back("\"" + std::string(reference) +
                         "\" needs an absolute path, e.g. ${file:/run/secrets/pg_password}");
    return;
  }
  std::string error;
  std::optional<std::string> content = read_secret_file(std::string(path), error);
  if (!content) {
    out.errors.push_back("cannot read \"" + std::string(reference) + "\": " + error);
    return;
  }
  out.text += *content;
  out.from_files.push_back(std::move(*content));
}

}  // namespace

std::optional<std::string> read_secret_file(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string content;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::strerror(errno);  // EISDIR for a folder
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_secret_file_bytes) {
      error =
          "larger than " + std::to_string(max_secret_file_bytes / 1024) + " KiB: not a secret file";
      ::close(fd);
      return std::nullopt;
    }
  }
  ::close(fd);
  if (content.ends_with("\r\n")) {
    content.resize(content.size() - 2);
  } else if (content.ends_with('\n')) {
    content.pop_back();
  }
  return content;
}

env_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

bool is_routing_placeholder(std::string_view name) {
  // sluice's own, then table.name.style debezium's (Debezium's collection.name.format).
  return name == "topic" || name == "database" || name == "schema" || name == "table" ||
         name == "source.db" || name == "source.schema" || name == "source.table";
}

namespace {

// The routing placeholder a name is a likely typo of (case aside: ${Table}, ${TABLE}).
std::optional<std::string_view> near_placeholder(std::string_view name) {
  static constexpr std::string_view placeholders[] = {"topic", "database", "schema", "table"};
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view p : placeholders)
    if (p == lower) return p;
  return closest_match(lower, placeholders);
}

}  // namespace

substitution substitute_env(std::string_view text, const env_lookup& env, bool routing_allowed) {
  substitution out;
  out.text.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out.text += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out.text.push_back(text[i++]);
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      out.errors.push_back("unterminated \"${\" (write $${ for a literal \"${\")");
      return out;
    }
    const std::string_view inner = text.substr(i + 2, close - i - 2);
    const std::string_view reference = text.substr(i, close - i + 1);
    i = close + 1;
    if (inner.starts_with(file_prefix)) {
      substitute_file(reference, inner.substr(file_prefix.size()), out);
      continue;
    }
    const std::size_t sep = inner.find(":-");
    const std::string_view name = inner.substr(0, sep);
    if (is_routing_placeholder(name)) {
      if (routing_allowed && sep == std::string_view::npos) {
        out.text += reference;
      } else if (routing_allowed) {
        out.errors.push_back("routing placeholder ${" + std::string(name) + "} takes no default");
      } else {
        out.errors.push_back("${" + std::string(name) +
                             "} is a routing placeholder, valid only in table.name.format and "
                             "tables.<source>.target");
      }
      continue;
    }
    if (!is_valid_name(name)) {
      out.errors.push_back("\"" + std::string(reference) +
                           "\" is not a variable reference: a name is letters, digits and _, "
                           "not starting with a digit (write $${ for a literal \"${\")");
      continue;
    }
    std::optional<std::string> value = env(name);
    if (sep != std::string_view::npos && (!value || value->empty())) {
      out.text += inner.substr(sep + 2);
    } else if (value) {
      out.text += *value;
      out.from_env.push_back(std::move(*value));
    } else if (auto placeholder = routing_allowed ? near_placeholder(name) : std::nullopt) {
      // In a routing template an unset ${tabel} is far likelier a typo than a variable.
      out.errors.push_back("${" + std::string(name) +
                           "} is not a routing placeholder (${topic}, ${database}, ${schema}, "
                           "${table}) nor a set environment variable: did you mean ${" +
                           std::string(*placeholder) + "}?");
    } else {
      out.errors.push_back("environment variable " + std::string(name) + " is not set (write ${" +
                           std::string(name) + ":-default} to give a default)");
    }
  }
  return out;
}

}  // namespace sluice
