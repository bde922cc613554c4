/// @file solutions/13_attention/attention_steps_table.h
/// @brief lab13_attention_steps' table and record of one problem: each row's median beside the row
/// it improves and PyTorch's backends, its registers and occupancy, its check, and the lines of its
/// check after timing.
#pragma once

#include "attention_steps_runs.h"
#include "pytorch_sdpa.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace lab13::steps {

/// Prints the table of `rows` on `shape` (then why a PyTorch backend did not run, and one
/// "recheck ..." line per timed row) and returns its records; `rechecks` gains each timed row's
/// check after timing, named "lab13_attention_steps/ROW/LABEL" as its record.
nlohmann::json print_problem(const std::vector<Row>& rows, const AttentionShape& shape,
                             const lab13_library::SdpaResults& sdpa, nlohmann::json& rechecks);

}  // namespace lab13::steps
