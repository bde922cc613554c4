/// @file dcgan_model.h
/// @brief The DCGAN generator of [DCGAN-SHPC] (labs 09 and 10): its tensors, their names, shapes
/// and layouts, and the deterministic default weights.
///
/// z (100 floats) -> linear 100 -> 8192 = 4 x 4 x 512 (HWC) -> batch norm -> ReLU -> four 5 x 5
/// stride-2 'SAME' transposed convolutions 512 -> 256 -> 128 -> 64 -> 3 (8 x 8, 16 x 16, 32 x 32,
/// 64 x 64), batch norm + ReLU after the first three, tanh after the last.
///
/// Layouts (row-major, as [DCGAN-SHPC]'s indexing implies):
/// - `linear.weight` [100][8192]: output j = sum_i z[i] * weight[i][j] + bias[j]; j = (h * 4 + w) *
/// 512 + c;
/// - `tconvN.filter` [5][5][K][C] ([R][S][out channels][in channels], TensorFlow's conv2d_transpose
///   layout); activations are H x W x C per image, images one after another. Output (y, x, k) of a
///   2H x 2W output is bias[k] + sum over r, s, c of in((y + 1 - r) / 2, (x + 1 - s) / 2, c) *
///   filter[r][s][k][c], over the r with y + 1 - r even and (y + 1 - r) / 2 in [0, H), likewise s.
///   [DCGAN-SHPC] writes the same sum on the zero-inserted input J (one zero between input pixels,
///   3 zero rows and columns before, 2 after: eq. 9): out(y, x, k) = sum J[y + r][x + s][c] *
///   filter[4 - r][4 - s][k][c]; substituting r -> 4 - r gives the formula above;
/// - `bnN.{scale,offset,mean,variance}` [C]: y = scale * (x - mean) / sqrt(variance + 1e-5) +
/// offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalabs::dcgan {

inline constexpr int kLatent = 100;  ///< floats per latent vector z
inline constexpr int kImage = 64;    ///< output images are kImage x kImage x 3
/// Floats of one output image (kImage x kImage x 3, H x W x C).
inline constexpr std::size_t kImageFloats = static_cast<std::size_t>(kImage) * kImage * 3;
inline constexpr float kBatchNormEpsilon = 1e-5f;  ///< added to the variance

/// One tensor of the model: its name in the weights file and its shape.
struct TensorSpec {
  std::string name;                  ///< e.g. "tconv1.filter"
  std::vector<std::uint32_t> shape;  ///< e.g. {5, 5, 256, 512}
  /// Product of the shape.
  std::size_t elements() const;
};

/// Every tensor of the generator, in the order the weights file stores them: linear.weight,
/// linear.bias, bn0.{scale,offset,mean,variance}, then per transposed convolution N = 1..4
/// tconvN.filter, tconvN.bias and (N < 4) bnN.{scale,offset,mean,variance}.
const std::vector<TensorSpec>& generator_tensors();

/// The generator's weights: one float vector per tensor of generator_tensors(), same order.
struct Weights {
  std::vector<std::vector<float>>
      tensors;  ///< tensors[i] has generator_tensors()[i].elements() floats
  /// The tensor named `name`; throws std::invalid_argument for an unknown name.
  const std::vector<float>& operator[](const std::string& name) const;
};

/// Deterministic weights from `seed`, initialised as DCGAN prescribes: linear and filters from
/// N(0, 0.02), biases 0, batch-norm scale from N(1, 0.02), offset 0, running mean drawn near 0 and
/// variance near 1 (so that inference-form batch norm is not an identity in tests).
Weights default_weights(std::uint64_t seed);

}  // namespace cudalabs::dcgan
