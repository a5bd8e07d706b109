#pragma once

// Comparing two replicas of one stream through SQL, whoever wrote them (a Connect sink, sluice):
// the stream's columns only (sluice's own _sluice_* columns left out), each type's equality.
// Used by the takeover and transform-chain tests. Threading: one (the test's connection).

#include <string>
#include <utility>
#include <vector>

namespace sluice::testing {

// The columns of public.table but sluice's own, in order, each quoted, as a value to compare:
// json and xml, which have no equality operator, as text; the others as they are (an interval
// sluice writes as '1 day 02:03:04.5' equals the connector's '26:03:04.5').
std::vector<std::string> stream_columns(const std::string& table);

// Rows of public.a not in public.b and of b not in a (EXCEPT ALL, on `columns`), each as
// "<table>: (<row as text>)": empty when they hold the same rows.
std::vector<std::string> difference(const std::vector<std::string>& columns, const std::string& a,
                                    const std::string& b);

// The columns of public.table but sluice's own, in order: name, format_type().
std::vector<std::pair<std::string, std::string>> stream_column_types(const std::string& table);

// Rows of public.ours not in public.theirs and back (EXCEPT ALL, on theirs' stream columns),
// ours read in theirs' column types, for replicas that each created their own tables (sluice's
// auto.create types are not a Connect sink's: numeric where it made double precision, text for
// bit strings, jsonb for json; docs/column-types.md): json and jsonb compared as jsonb, xml as
// text, bit strings as varbit, any other column of ours cast to theirs' type. Each row as
// "<table>: (<row as text>)"; empty when they hold the same rows.
std::vector<std::string> difference_in_types_of(const std::string& ours, const std::string& theirs);

// Each row of a query as its cells joined by '|', NULL as <null>.
std::vector<std::string> rows_of(const std::string& sql);

}  // namespace sluice::testing
