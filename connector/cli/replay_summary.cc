#include "connector/cli/replay_summary.h"

#include <cstdio>

#include "connector/cli/progress_bar.h"

namespace sluice {
namespace {

std::string plural(size_t n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string format_replay_summary(const replay_totals& t, double elapsed_seconds) {
  const apply_stats& a = t.applied;
  std::string s = "replay summary\n";
  auto line = [&](const char* label, const std::string& text) {
    char head[32];
    std::snprintf(head, sizeof head, "  %-14s", label);
    s += head + text + "\n";
  };
  line("messages", format_count(t.messages));
  line("changes", format_count(t.changes));
  std::string written = format_count(a.upserted + a.deleted + a.appended) + " (" +
                        format_count(a.upserted) + " upserted, " + format_count(a.deleted) +
                        " deleted";
  if (a.appended) written += ", " + format_count(a.appended) + " appended";
  line("rows written", written + ")");
  // Changes that reached the database folded into another of their key; merge_stats counts
  // exact duplicates apart from the rest.
  std::string collapsed = format_count(t.merge.collapsed + t.merge.duplicates);
  std::string detail;
  if (t.merge.duplicates) detail = plural(t.merge.duplicates, "duplicate", "duplicates");
  if (t.merge.csn_conflicts) {
    detail += (detail.empty() ? "" : ", ") +
              plural(t.merge.csn_conflicts, "CSN conflict", "CSN conflicts");
  }
  if (!detail.empty()) collapsed += " (" + detail + ")";
  line("collapsed", collapsed);
  line("stale", format_count(a.stale));
  std::string dead = format_count(a.dead_lettered);
  if (t.invalid_lines) {
    dead += " (" + plural(t.invalid_lines, "line", "lines") + " not a kcat -J record)";
  }
  line("dead letters", dead);
  if (t.catalog_updates || t.ddl_records) {
    line("metadata", plural(t.catalog_updates, "catalog update", "catalog updates") + ", " +
                         plural(t.ddl_records, "DDL record", "DDL records"));
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.2f s", elapsed_seconds);
  line("elapsed", elapsed);
  return s;
}

}  // namespace sluice
