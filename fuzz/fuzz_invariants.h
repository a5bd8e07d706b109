#pragma once

#include <string>
#include <string_view>

#include "core/catalog/table_catalog.h"
#include "core/model/decoded.h"
#include "core/model/raw_message.h"
#include "schemas/common/decoder.h"

namespace sluice::fuzz {

// What every decoder promises (schemas/common/decoder.h, SPEC §2-§3), checked on one
// message. Each check throws invariant_violation naming what broke.
struct decode_expectations {
  // DSQL tables always have a key: no upsert or delete may come out keyless.
  bool always_keyed = false;
  // Decode the message a second time and require the same outcome and the same catalog
  // (SPEC §3: records may be sent again; decoding one twice changes nothing).
  bool check_redelivery = true;
  // Bytes a compressed Avro container may inflate to beyond its own (its decoder's
  // max_message_bytes): they count as input in the output bound.
  size_t decompressed_allowance = 0;
};

// The output bound every decoder keeps (SPEC §8), checked with slack: decoded_units(out) of
// one message is at most output_slack × (units_per_byte × its bytes + free_units), the
// figures of schemas/common/decode_budget.h. The units are measured on the output here, not
// taken from the decoders' own budgets: a change's key, CSN and context, which no budget
// charges, are why the slack is there. A quadratic blow-up is far above it.
inline constexpr uint64_t output_slack = 4;
uint64_t decoded_units(const decode_output& out);
uint64_t decoded_bound(size_t input_bytes);
// The decompressed_allowance of a message: max_message_bytes when it may be an Avro container
// with a codec (it names "deflate" or "snappy" anywhere: an over-estimate only loosens the
// bound), else 0. Read from the bytes, not from the decoder under test.
size_t inflation_allowance(std::string_view message, size_t max_message_bytes);

// Decodes msg with d (whose catalog is `catalog`) and checks:
//   - decode does not throw; an error appends nothing;
//   - what it appended is within decoded_bound() of the message's bytes (key and value);
//   - every change: a table, a valid non-empty CSN, key columns and values paired, a keyed
//     table's change keyed (truncates keyless), key values canonical and not null, image
//     values well-formed (numbers JSON numbers, booleans true/false, no NUL in text, no
//     duplicate column names, nothing absent in a full image), the Kafka origin kept;
//   - catalog updates: key columns among the columns when columns are listed;
//   - with check_redelivery: the same message again decodes to the same output and leaves
//     the catalog unchanged.
void decode_and_check(decoder& d, table_catalog& catalog, const raw_message& msg,
                      const decode_expectations& expect = {});

// Throws invariant_violation(what) when !ok.
void require(bool ok, std::string_view what);

// A textual dump of an output / the catalog, for comparing two decodes.
std::string describe(const decode_output& out);
std::string describe(table_catalog& catalog);

}  // namespace sluice::fuzz
