/// @file conv_types.h
/// @brief A batched multi-channel 2-D convolution (valid padding, stride 1): its shape, its
/// arguments and their validation.
///
/// Layouts are PyTorch's: the input is N x C x H x W, the filters F x C x R x S, the output
/// N x F x P x Q with P = H - R + 1 and Q = W - S + 1, all dense and row-major.
/// output[n][f][p][q] = sum over c, r, s of input[n][c][p + r][q + s] * filter[f][c][r][s]
/// (a cross-correlation, as every deep-learning framework computes it).
#pragma once

#include <cuda_runtime.h>  // __host__ __device__: kernels use the shape's helpers too

#include <cstdint>
#include <string>

namespace cudalabs {

/// The sizes of one convolution.
struct ConvShape {
  int n = 1;  ///< images in the batch
  int h = 1;  ///< input height
  int w = 1;  ///< input width
  int c = 1;  ///< channels of every image and filter
  int f = 1;  ///< filters (output channels)
  int r = 1;  ///< filter height
  int s = 1;  ///< filter width

  __host__ __device__ int p() const { return h - r + 1; }                       ///< output height
  __host__ __device__ int q() const { return w - s + 1; }                       ///< output width
  std::int64_t input_elements() const { return std::int64_t{n} * c * h * w; }   ///< N*C*H*W
  std::int64_t filter_elements() const { return std::int64_t{f} * c * r * s; }  ///< F*C*R*S
  std::int64_t output_elements() const { return std::int64_t{n} * f * p() * q(); }  ///< N*F*P*Q
  std::int64_t reduction_length() const { return std::int64_t{c} * r * s; }  ///< terms per output
  /// Floating-point operations: 2 per multiply-add.
  double flops() const {
    return 2.0 * static_cast<double>(output_elements()) * static_cast<double>(reduction_length());
  }
  /// "1024x31x31x5_f2x3x3" (N x H x W x C, then F x R x S): usable in test and benchmark names.
  std::string label() const;
};

/// The device pointers and shape a convolution kernel receives.
struct ConvArgs {
  ConvShape shape;                ///< sizes
  const float* input = nullptr;   ///< N x C x H x W
  const float* filter = nullptr;  ///< F x C x R x S
  float* output = nullptr;        ///< N x F x P x Q
};

/// Throws std::invalid_argument, naming `who`, the field and its value, unless every size is >= 1,
/// the filter fits in the image (R <= H, S <= W), and every tensor can be indexed with a 32-bit
/// int.
void validate_conv_shape(const ConvShape& shape, const std::string& who);

/// validate_conv_shape plus non-null pointers.
void validate_conv_args(const ConvArgs& args, const std::string& who);

}  // namespace cudalabs
