#include <doctest/doctest.h>

#include "connector/cli/replay_summary.h"

namespace sluice {

TEST_CASE(
    "the replay summary lists messages, changes, rows written, collapsed, stale, dead "
    "letters and elapsed time") {
  replay_totals t;
  t.messages = 15;
  t.changes = 14;
  t.merge.collapsed = 2;  // folded, duplicates apart
  t.merge.duplicates = 1;
  t.applied.upserted = 5;
  t.applied.deleted = 1;
  t.applied.stale = 2;
  t.applied.dead_lettered = 1;
  CHECK(format_replay_summary(t, 0.4219) ==
        "replay summary\n"
        "  messages      15\n"
        "  changes       14\n"
        "  rows written  6 (5 upserted, 1 deleted)\n"
        "  collapsed     3 (1 duplicate)\n"
        "  stale         2\n"
        "  dead letters  1\n"
        "  elapsed       0.42 s\n");
}

TEST_CASE(
    "the replay summary says which dead letters were lines that were not kcat records, "
    "appended keyless rows, and the metadata records it wrote") {
  replay_totals t;
  t.messages = 1200;
  t.invalid_lines = 2;
  t.catalog_updates = 1;
  t.ddl_records = 2;
  t.applied.appended = 4;
  t.merge.collapsed = 2;
  t.merge.csn_conflicts = 1;
  t.applied.dead_lettered = 3;
  const std::string s = format_replay_summary(t, 61);
  CHECK(s.find("  messages      1,200\n") != std::string::npos);
  CHECK(s.find("  rows written  4 (0 upserted, 0 deleted, 4 appended)\n") != std::string::npos);
  CHECK(s.find("  collapsed     2 (1 CSN conflict)\n") != std::string::npos);
  CHECK(s.find("  dead letters  3 (2 lines not a kcat -J record)\n") != std::string::npos);
  CHECK(s.find("  metadata      1 catalog update, 2 DDL records\n") != std::string::npos);
  CHECK(s.find("  elapsed       61.00 s\n") != std::string::npos);
}

}  // namespace sluice
