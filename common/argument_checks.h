/// @file argument_checks.h
/// @brief The argument checks the shape validators share (GEMM, convolution): one message format.
#pragma once

#include <string>

namespace cudalabs {

/// Throws std::invalid_argument "<who>: <name> = <value> must be >= 1" unless value >= 1.
void require_positive(const std::string& who, const char* name, long long value);

}  // namespace cudalabs
