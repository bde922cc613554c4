/// @file solutions/13_attention/attention_steps_runs.h
/// @brief What lab13_attention_steps runs on one problem: its rows (the ladder's flash rungs and
/// the steps past them, attention_steps.h), each checked first, the passing ones timed in
/// interleaved rounds, then checked again in the buffers they were timed in.
#pragma once

#include "checks.h"
#include "lab.h"

#include "common/driver_record.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab13::steps {

/// A row: a variant and the one it improves ("" for the ladder's rungs).
struct Candidate {
  const AttentionVariant* variant;
  std::string improves;
};

/// The ladder's flash_ rungs, then the steps; only those `names` lists when it lists any
/// (FlagError naming --variant and the known rows for a name that is neither).
std::vector<Candidate> candidates(const std::vector<std::string>& names);

/// One row of one problem.
struct Row {
  const Candidate* candidate;
  std::string check;       ///< "PASS", "FAIL", "FAIL after timing", "skipped: ..."
  std::vector<double> ms;  ///< one per interleaved round (empty: not timed)
  std::optional<cudalabs::Recheck> after_timing;  ///< the check in the timed buffers
};

/// Checks every candidate on `shape` (`timed`'s, sampled rows) and on an odd problem (1 x 3 heads
/// x 1000 queries, every row), one line each; a row that cannot run here is "skipped: why".
/// `failures` counts the failing checks.
std::vector<Row> check_rows(const std::vector<Candidate>& all, AttentionVerifier& timed,
                            const AttentionShape& shape, std::uint64_t seed, int& failures);

/// Times the passing rows on `shape` in `verifier`'s inputs and one output, interleaved: one
/// measurement of every row per round, the start row rotating, each measurement a few launches
/// between two events (about 2 ms of work), after `warmups` untimed ones. Before each timed
/// measurement the row runs untimed for at least `settle_ms`, so that it is timed at the clocks
/// its own power draw allows rather than those the previous row's left: a row after the Hopper
/// steps (at the 700 W cap) ran 10 % slower than alone. Then checks each timed
/// row again in those buffers (AttentionVerifier::check_in_timed_buffers: Q, K and V redrawn in
/// place from derive_seed(seed, "steps recheck NAME LABEL"), the output poisoned, one launch as
/// timed); a row wrong there becomes "FAIL after timing" and counts in `failures`.
void time_and_recheck(std::vector<Row>& rows, const AttentionShape& shape,
                      AttentionVerifier& verifier, int warmups, int repetitions, double settle_ms,
                      std::uint64_t seed, int& failures);

}  // namespace lab13::steps
