#pragma once

#include "connector/config/import/connect_config.h"
#include "connector/config/import/import_mapper.h"

namespace sluice {

// The connector's `transforms` chain as sluice's (`transforms:` and transforms.<name>.*, SPEC
// §6a): the transforms sluice runs with their options and predicates as they are, in the
// chain's order; ExtractNewRecordState without options skipped (sluice reads the envelope
// itself); any other transform, option or predicate listed as not mapped, the rest of the
// chain still written.
void map_transforms(mapper& m, const connect_config& c);

}  // namespace sluice
