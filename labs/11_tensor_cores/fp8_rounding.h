/// @file labs/11_tensor_cores/fp8_rounding.h
/// @brief FP8 (E4M3) inputs as an FP8 GEMM sees them, for measuring what they would cost the
/// DCGAN's images before any FP8 kernel is written (lab11_precision_error --fp8).
///
/// E4M3 keeps 3 mantissa bits and a range of 2^-9 to 448, too narrow for raw activations and
/// weights, so FP8 GEMMs carry a scale: a tensor (or one output channel of a weight) is divided by
/// its largest magnitude over 448, converted to E4M3 (cuda_fp8.h: nearest even, saturating), and
/// the products are multiplied back by the scales. These functions return the values the products
/// then see.
#pragma once

#include <span>
#include <vector>

namespace lab11 {

/// `value` converted to E4M3 and back, unscaled: nearest even, saturated to +-448.
float round_to_e4m3(float value);

/// Rounds `values` to E4M3 in place with one scale for all of them: largest |value| / 448.
void round_e4m3_per_tensor(std::span<double> values);

/// Rounds `values` to E4M3 in place with one scale per channel, the value at index i belonging to
/// channel (i / inner) % channels (a weight's output channels: inner 1 for the linear layer's
/// [100][8192], C for a filter's [5][5][K][C]).
void round_e4m3_per_channel(std::span<float> values, int channels, int inner);

}  // namespace lab11
