#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/change.h"
#include "core/model/value.h"

namespace sluice {

// A model of one source table for the apply property tests: random change histories over a
// few integer keys (column "id"), the changes a decoder would make of them, and the stored
// state SPEC §4 defines for any set of them — the oracle the replica is compared with.
//
// Data columns: a (numbers), b (strings, hostile ones included), c (booleans), d (JSON
// objects), each also NULL at times. Every value is generated in the form PostgreSQL prints
// it back, whether the column became numeric/boolean/jsonb or, created from nulls, text.

inline constexpr std::array<const char*, 4> history_columns = {"a", "b", "c", "d"};

struct source_event {
  enum class kind : uint8_t { upsert, remove, key_change, truncate };
  kind what = kind::upsert;
  int64_t key = 0;      // the key written: the new key of a key change (truncate: none)
  int64_t old_key = 0;  // key_change: the key the row leaves
  int64_t seq = 0;      // the CSN's single integer part
  bool partial = false;
  image img;  // data columns only, in history_columns order; absent columns are not listed
};

std::string describe(const source_event& e);

struct history_options {
  bool partials = false;  // partial images (and the per-column CSNs they need)
  int keys = 4;           // keys per history
  int min_length = 3;     // source operations per history
  int max_length = 12;
  // Now and then a second, different image of an upserted key at the same CSN (SPEC §2: one
  // is kept deterministically — per column the merge's greater value, whatever the batches).
  bool conflicts = false;
};

// Appends one history over keys [base, base + keys) to out. CSNs rise by operation, and some
// operations share one: an equal-CSN key shift (pk = pk + 1 over a run of rows) or, now and
// then, unrelated keys changed at one CSN; with options.conflicts, two different images of one
// key at one CSN. Returns the highest CSN used.
int64_t generate_history(std::mt19937_64& rng, const history_options& options, int64_t base,
                         std::vector<source_event>& out);

// What a key must hold (SPEC §4): the row exists iff its highest upsert CSN is at or above
// its highest delete CSN; each column holds the value of the highest-CSN image carrying it
// (at equal CSN, a value over NULL, then the greater text), NULL when that CSN is below the
// highest delete CSN. A truncate, when applied (truncate.enabled), deletes every key at its
// CSN. Key -> column texts (NULL: nullopt), for the keys whose row exists. Order and
// duplicates of the events do not matter.
using row_texts = std::array<std::optional<std::string>, 4>;
std::map<int64_t, row_texts> expected_state(const std::vector<source_event>& events,
                                            bool truncates_applied = true);

// The changes a decoder makes of an event: one change (a truncate: of the whole table); or,
// for a key change with
// split_key_change, a delete of the old key and an upsert of the new one at the same CSN
// (Debezium's pair of messages).
void append_changes(const source_event& e, table_entry* table, bool split_key_change,
                    std::vector<change>& out);

std::string describe(const row_texts& row);

}  // namespace sluice
