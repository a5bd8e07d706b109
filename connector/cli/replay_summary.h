#pragma once

#include <string>

#include "connector/drive/replayer.h"

namespace sluice {

// The summary `sluice replay` prints at the end (pure: the tests pin its text):
//   replay summary
//     messages      15
//     changes       14
//     rows written  6 (5 upserted, 1 deleted)
//     collapsed     3 (1 duplicate)
//     stale         2
//     dead letters  1
//     elapsed       0.42 s
std::string format_replay_summary(const replay_totals& t, double elapsed_seconds);

}  // namespace sluice
