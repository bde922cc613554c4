/// @file labs/11_tensor_cores/dcgan_layers.h
/// @brief Lab 11, step 7: the DCGAN generator's transposed convolutions on tensor cores, BF16
/// activations and filters with FP32 sums.
///
/// Each of a layer's four sub-pixel phases (labs/09_dcgan/subpixel.h) is an implicit GEMM: rows
/// are input pixels (image, i, j), columns output channels, and the reduction runs over (tap,
/// channel). The copy engine reads A straight from the NHWC activations, one box per tap at the
/// tap's shifted position, and fills zeros where the box leaves the image: the im2col gather and
/// its borders cost nothing. B is the phase's packed filter in BF16. The epilogue applies the
/// layer's folded batch norm and ReLU and stores BF16 at the phase's output pixels (2 i + py,
/// 2 j + px). The RGB layer (3 output channels, too narrow for a wgmma tile: mma.sync, the four
/// phases in one GEMM) and the linear layer are given kernels.
#pragma once

#include "common/reference_dcgan.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace lab11 {

/// One transposed convolution (5 x 5, stride 2, 'SAME') on tensor cores; T is the activations'
/// type: __nv_bfloat16 (BF16 inputs) or float (TF32 inputs).
template <class T>
struct SubpixelArgs {
  /// Sizes. in_channels a multiple of 64 (BF16) or 32 (TF32); out_channels 64, 128 or a multiple
  /// of 256 (the tile widths); each tile's pixels must be whole image rows: W divides the tile's
  /// pixels (128, or 256 for 64 output channels), and H x W divides them or is a multiple of them.
  cudalabs::dcgan::TconvShape shape;
  const T* input = nullptr;  ///< batch x H x W x C, 16-byte aligned
  /// BF16: subpixel.h's packed filter (25 C rows, K columns). TF32: the same transposed (K rows,
  /// 25 C columns: transposed_packed_filter), for TF32 takes no transposed B.
  const T* filter = nullptr;
  T* output = nullptr;           ///< batch x 2H x 2W x K, every element written (TF32: rounded)
  const float* scale = nullptr;  ///< per output channel: value * scale + shift (folded batch norm)
  const float* shift = nullptr;  ///< per output channel
  bool relu = true;              ///< ReLU after scale and shift
};

/// BF16 activations and filter.
using SubpixelBf16Args = SubpixelArgs<__nv_bfloat16>;
/// FP32 activations and filter read as TF32.
using SubpixelTf32Args = SubpixelArgs<float>;

/// Runs one transposed convolution on tensor cores. Throws std::invalid_argument naming the size
/// it does not take, and std::runtime_error on a GPU without sm_90a code (see
/// tconv_subpixel_unavailable).
void tconv_subpixel_bf16(const SubpixelBf16Args& args, cudaStream_t stream);
/// The same with TF32 inputs.
void tconv_subpixel_tf32(const SubpixelTf32Args& args, cudaStream_t stream);

/// Why the tensor-core transposed convolutions cannot run on the current GPU; empty when they can.
std::string tconv_subpixel_unavailable();

/// The packed filter (25 C rows by K columns, subpixel.h) transposed to K rows by 25 C columns,
/// each value rounded to TF32: the TF32 kernel's B.
std::vector<float> transposed_packed_filter(const std::vector<float>& packed, int in_channels,
                                            int out_channels);

/// The RGB layer on tensor cores (mma.sync, compute capability 8.0+): input batch x H x W x C
/// (16-byte aligned, C 32, 64 or 96), any H and W, filter packed as subpixel.h says, in FP32
/// (rounded to the inputs' precision here), out_channels <= 8; output FP32 tanh(sum + bias), FP32
/// sums added in a fixed order. The four phases are one GEMM over superpixels (2 x 2 output pixels,
/// all 4 K outputs as its columns) whose sums stay in registers while a warp walks down a band of
/// the image (dcgan_rgb_layer.cu). Throws
/// std::invalid_argument naming a size it does not take. BF16 inputs:
void tconv_rgb_bf16_input(const cudalabs::dcgan::TconvShape& shape, const __nv_bfloat16* input,
                          const float* packed_filter, const float* bias, float* output,
                          cudaStream_t stream);
/// The same with FP32 inputs read as TF32 (the TF32 generator's activations, already rounded).
void tconv_rgb_tf32_input(const cudalabs::dcgan::TconvShape& shape, const float* input,
                          const float* packed_filter, const float* bias, float* output,
                          cudaStream_t stream);

/// The linear layer with its bias, batch norm and ReLU: out[r][o] = max(0, (sum_k latents[r][k]
/// weight[k][o]) * scale[o] + shift[o]) for `count` rows of `depth` (1..128) latent values,
/// `outputs` (a multiple of 128) columns of the row-major weight, stored as BF16 (the first
/// transposed convolution's input). TF32 tensor cores in three products (about FP32's accuracy;
/// dcgan_linear_layer.cu). Throws std::invalid_argument naming a size it does not take.
void linear_bn_relu(const float* latents, int count, int depth, const float* weight, int outputs,
                    const float* scale, const float* shift, __nv_bfloat16* out,
                    cudaStream_t stream);
/// The same, stored as FP32 rounded to TF32.
void linear_bn_relu(const float* latents, int count, int depth, const float* weight, int outputs,
                    const float* scale, const float* shift, float* out, cudaStream_t stream);

}  // namespace lab11
