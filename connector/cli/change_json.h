#pragma once

#include <string>

#include "core/model/change.h"
#include "core/model/decoded.h"

namespace sluice {

// Appends one change as the JSON line of SPEC §3 (`sluice decode` output and fixture format):
// {"table":..,"op":..,"key":{..},"old_key":..,"csn":"hex","csn_parts":[..],"image":{..},
//  "source":{"tx":..,"ts":"ISO-8601","read":"cdc|backfill","topic":..,"partition":..,"offset":..}}
// Numbers are printed as their exact source text; absent columns are omitted.
void append_change_json(std::string& out, const change& c);

// What a metadata record taught, as one JSON line of `sluice decode`:
// {"catalog":{"table":..,"key":[..],"columns":[{"name":..,"type":..,"portable_type":..,
//  "class":..,"nullable":..,"key":..}],"learned_from":..,"csn":"hex","csn_parts":[..],
//  "source":{"topic":..,"partition":..,"offset":..}}}
// `type` is the source's spelling, `portable_type` column_type::to_text() ("unknown" when the
// stream says nothing).
void append_catalog_update_json(std::string& out, const catalog_update& u);

// A DDL record, as one JSON line of `sluice decode`:
// {"ddl":{"table":..,"statement":..,"csn":"hex","csn_parts":[..],"source":{"ts":"ISO-8601",
//  "topic":..,"partition":..,"offset":..}}}
void append_ddl_json(std::string& out, const ddl_record& d);

// A piece of a chunked record (DSQL), as one JSON line of `sluice decode` (the sink
// reassembles them; decode shows what they are):
// {"chunk":{"chunk_id":..,"piece":"principal"|<index>,"total_fragments":..,"crc32c":"..",
//  "bytes":..,"source":{"topic":..,"partition":..,"offset":..}}}   (total and crc: principal)
void append_chunk_piece_json(std::string& out, const chunk_piece& p);

// Nanoseconds since the epoch as ISO-8601 UTC with microseconds ("2026-07-13T04:01:01.123456Z").
std::string format_timestamp(timestamp_ns ts);

}  // namespace sluice
