/// @file labs/11_tensor_cores/tensor_core_generator.h
/// @brief Lab 09's generator with its transposed convolutions on tensor cores (step 7): the layers
/// a lab09::Generator runs for the variants of a reduced precision.
#pragma once

#include "common/compute_precision.h"
#include "common/dcgan_model.h"
#include "common/device_buffer.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"

#include <cuda_bf16.h>

#include <array>
#include <cstddef>
#include <memory>

namespace lab11 {

/// The generator on tensor cores, in BF16 or TF32:
/// - the linear layer keeps FP32's accuracy (TF32 tensor cores in three products: in BF16 its
///   inputs would be the largest share of the images' error,
///   docs/data/dcgan/precision_error_per_layer_cpu.txt), its bias, batch norm and ReLU in the same
///   kernel, which stores the first transposed convolution's input in BF16, or in FP32 rounded to
///   TF32 (linear_bn_relu);
/// - transposed convolutions 1 to 3 run tconv_subpixel_bf16 or _tf32, batch norm and ReLU in the
///   epilogue;
/// - the RGB layer on mma.sync, BF16 or TF32 inputs (tconv_rgb_bf16_input, _tf32_input).
class TensorCoreLayers final : public lab09::PrecisionLayers {
 public:
  /// Uploads `weights` (filters converted to BF16, or rounded to TF32 and transposed) and
  /// allocates activations for batches of up to `max_batch` images. kFp32 throws
  /// std::invalid_argument naming --precision (lab 09's layers are FP32).
  TensorCoreLayers(const cudalabs::dcgan::Weights& weights, int max_batch,
                   cudalabs::ComputePrecision precision);

  /// kBf16 or kTf32.
  cudalabs::ComputePrecision precision() const override { return precision_; }
  /// The layer sequence above for `count` (1..max_batch) latents (PrecisionLayers::run).
  void run(const float* latents, int count, float* images, cudaStream_t stream,
           const std::function<void(int)>& boundary) override;
  /// Fills the linear layer's output and both activation buffers with NaN.
  void poison_activations() override;

  /// Device bytes the layers for `max_batch` images at `precision` allocate beyond their weights.
  static std::size_t device_bytes(int max_batch, cudalabs::ComputePrecision precision);

 private:
  cudalabs::ComputePrecision precision_;
  int max_batch_;
  cudalabs::DeviceBuffer<float> linear_weight_, linear_scale_, linear_shift_;
  std::array<cudalabs::DeviceBuffer<__nv_bfloat16>, 4> bf16_filter_;  // [1..3], BF16
  std::array<cudalabs::DeviceBuffer<float>, 4> tf32_filter_;          // [1..3], TF32, transposed
  std::array<cudalabs::DeviceBuffer<float>, 4> scale_, shift_;        // [1..3]
  cudalabs::DeviceBuffer<float> rgb_filter_, rgb_bias_;
  // Inputs of layers 1, 3 (even) and 2, 4 (odd): BF16, or FP32 for TF32.
  cudalabs::DeviceBuffer<__nv_bfloat16> bf16_even_, bf16_odd_;
  cudalabs::DeviceBuffer<float> tf32_even_, tf32_odd_;

  template <class T>
  void run_layers(const float* latents, T* even, T* odd, int count, float* images,
                  cudaStream_t stream, const std::function<void(int)>& boundary);
};

/// The dcgan driver's variant for `precision` ("dcgan_bf16" or "dcgan_tf32"): run by a Generator
/// given TensorCoreLayers of that precision. Throws std::invalid_argument for kFp32.
const lab09::DcganVariant& tensor_core_variant(cudalabs::ComputePrecision precision);

/// Why `precision` cannot run on the current GPU (empty when it can): the tensor-core kernels
/// need sm_90a code and a Hopper GPU.
std::string tensor_core_unavailable(cudalabs::ComputePrecision precision);

}  // namespace lab11
