/// @file labs/99_tiny/lab.h
/// @brief A tiny lab for tests/repo/test_add_a_lab.py: one GEMM variant, added to a copy of the
/// suite to show that a lab declared in its own folder reaches every list of labs.
#pragma once

#include "common/gemm_variant.h"

#include <span>

/// The tiny lab.
namespace lab99 {

/// One variant, `tiny_naive`: one thread per element of C.
std::span<const cudalabs::GemmVariant> variants();

}  // namespace lab99
