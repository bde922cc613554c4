/// @file compute_precision.h
/// @brief The arithmetic a GEMM-shaped layer may run in: FP32 on the CUDA cores, or TF32 or BF16
/// inputs on the tensor cores with FP32 sums, and the rounding each applies to its inputs.
#pragma once

#include <string>
#include <string_view>

namespace cudalabs {

/// What a layer's multiplications see. Every precision sums in FP32 (or better); TF32 and BF16
/// round both inputs of each product first: TF32 keeps 10 of FP32's 23 mantissa bits, BF16 7
/// (unit roundoff 2^-11 and 2^-8).
enum class ComputePrecision { kFp32, kTf32, kBf16 };

/// "fp32", "tf32" or "bf16".
const char* precision_name(ComputePrecision precision);

/// The precision named `text` ("fp32", "tf32", "bf16"); anything else throws std::invalid_argument
/// with one line naming `flag` and the value: "--precision: invalid value 'fp16' (expected fp32,
/// tf32 or bf16)".
ComputePrecision parse_precision(std::string_view text, const std::string& flag = "--precision");

/// `value` as the tensor cores see it: unchanged for kFp32; for kTf32 rounded to 10 mantissa bits,
/// to nearest with ties away from zero (PTX cvt.rna.tf32.f32); for kBf16 rounded to 7 mantissa
/// bits, to nearest with ties to even (__float2bfloat16_rn). Infinities and NaN stay what they are.
float round_to_precision(float value, ComputePrecision precision);

}  // namespace cudalabs
