/// @file grader/referee/remote_workspace.h
/// @brief A variant's workspace size, asked of the student's code in the runner and bounded by the
/// referee: the referee allocates what it is told (and tells the runner to), so a size it did not
/// choose is refused past a cap of its own, with a failure that says so.
#pragma once

#include "grader/call.h"
#include "grader/referee/remote_runner.h"

#include <cstddef>
#include <string>

namespace grader::referee {

/// What `runner` replies to `call` (a declared workspace query, e.g. lab12_remote::SumWorkspace:
/// 8 bytes, the student's workspace_bytes), or std::runtime_error when it is more than `cap`
/// bytes. `problem` names the problem in that message.
std::size_t remote_workspace_bytes(RemoteRunner& runner, const Call& call, std::size_t cap,
                                   const std::string& problem);

}  // namespace grader::referee
