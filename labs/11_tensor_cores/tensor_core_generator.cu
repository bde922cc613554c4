// The DCGAN generator's layer sequence on tensor cores (given code, the same in both builds): it
// converts the weights once and calls step 7's kernel for the three wide transposed
// convolutions, lab 07's GEMM for the linear layer and dcgan_small_layers.cu for the rest.
#include "tensor_core_generator.h"

#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/poison.h"
#include "dcgan_layers.h"
#include "labs/07_wide_loads/lab.h"

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab11 {
namespace {

using cudalabs::ComputePrecision;
namespace dcgan = cudalabs::dcgan;
constexpr int kLinearOut = 4 * 4 * 512;

std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& values) {
  std::vector<__nv_bfloat16> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = __float2bfloat16_rn(values[i]);
  return out;
}

template <class T>
cudalabs::DeviceBuffer<T> upload(const std::vector<T>& values) {
  return cudalabs::DeviceBuffer<T>(std::span<const T>(values));
}

}  // namespace

std::size_t TensorCoreLayers::device_bytes(int max_batch) {
  // Linear output (FP32), the two BF16 activation buffers (largest inputs: 4x4x512 and 16x16x128
  // / 8x8x256 and 32x32x64 per image).
  const std::size_t images = static_cast<std::size_t>(max_batch);
  return images * (kLinearOut * sizeof(float) + (16 * 16 * 128 + 32 * 32 * 64) * 2);
}

TensorCoreLayers::TensorCoreLayers(const dcgan::Weights& weights, int max_batch,
                                   ComputePrecision precision)
    : precision_(precision), max_batch_(max_batch) {
  if (precision != ComputePrecision::kBf16)
    throw std::invalid_argument(std::string("--precision ") + cudalabs::precision_name(precision) +
                                ": lab 11's tensor-core layers are built for bf16 only");
  if (max_batch < 1)
    throw std::invalid_argument("--batch = " + std::to_string(max_batch) + " must be >= 1");
  cudalabs::require_device_memory(device_bytes(max_batch), "--batch " + std::to_string(max_batch));
  linear_weight_ = upload(weights["linear.weight"]);
  std::vector<float> a, shift;
  lab09::fold_batch_norm(weights["linear.bias"], weights["bn0.scale"], weights["bn0.offset"],
                         weights["bn0.mean"], weights["bn0.variance"], a, shift);
  linear_scale_ = upload(a);
  linear_shift_ = upload(shift);
  for (int l = 1; l <= 4; ++l) {
    const dcgan::TconvShape shape = dcgan::generator_layer(l, 1);
    const std::string t = "tconv" + std::to_string(l), b = "bn" + std::to_string(l);
    const std::vector<float> packed =
        lab09::packed_filter(weights[t + ".filter"], shape.in_channels, shape.out_channels);
    if (l == 4) {
      rgb_filter_ = upload(packed);
      rgb_bias_ = upload(weights[t + ".bias"]);
      break;
    }
    packed_[l] = upload(to_bf16(packed));
    lab09::fold_batch_norm(weights[t + ".bias"], weights[b + ".scale"], weights[b + ".offset"],
                           weights[b + ".mean"], weights[b + ".variance"], a, shift);
    scale_[l] = upload(a);
    shift_[l] = upload(shift);
  }
  const std::size_t images = static_cast<std::size_t>(max_batch);
  linear_out_ = cudalabs::DeviceBuffer<float>(images * kLinearOut);
  even_ = cudalabs::DeviceBuffer<__nv_bfloat16>(images * 16 * 16 * 128);
  odd_ = cudalabs::DeviceBuffer<__nv_bfloat16>(images * 32 * 32 * 64);
}

void TensorCoreLayers::poison_activations() {
  cudalabs::poison_device(linear_out_.data(), linear_out_.bytes());
  cudalabs::poison_device(even_.data(), even_.bytes());
  cudalabs::poison_device(odd_.data(), odd_.bytes());
}

void TensorCoreLayers::run(const float* latents, int count, float* images, cudaStream_t stream,
                           const std::function<void(int)>& boundary) {
  if (count < 1 || count > max_batch_)
    throw std::invalid_argument("lab11 tensor-core generator: count = " + std::to_string(count) +
                                " is outside 1.." + std::to_string(max_batch_));
  boundary(0);
  cudalabs::GemmArgs gemm;
  gemm.m = count;
  gemm.n = kLinearOut;
  gemm.k = dcgan::kLatent;
  gemm.a = latents;
  gemm.lda = dcgan::kLatent;
  gemm.b = linear_weight_.data();
  gemm.ldb = kLinearOut;
  gemm.c = linear_out_.data();
  gemm.ldc = kLinearOut;
  lab07::best_gemm(gemm, stream);
  scale_shift_relu_to_bf16(linear_out_.data(), static_cast<long long>(count) * kLinearOut,
                           kLinearOut, linear_scale_.data(), linear_shift_.data(), even_.data(),
                           stream);
  __nv_bfloat16* in = even_.data();
  __nv_bfloat16* out = odd_.data();
  for (int l = 1; l <= 3; ++l) {
    boundary(l);
    SubpixelBf16Args args;
    args.shape = dcgan::generator_layer(l, count);
    args.input = in;
    args.packed_filter = packed_[l].data();
    args.output = out;
    args.scale = scale_[l].data();
    args.shift = shift_[l].data();
    args.relu = true;
    tconv_subpixel_bf16(args, stream);
    std::swap(in, out);
  }
  boundary(4);
  tconv_rgb_bf16_input(dcgan::generator_layer(4, count), in, rgb_filter_.data(), rgb_bias_.data(),
                       images, stream);
  boundary(5);
}

const lab09::DcganVariant& tensor_core_variant(ComputePrecision precision) {
  using M = lab09::TconvMethod;
  static const lab09::DcganVariant kBf16{
      "dcgan_bf16",
      "lab 11: transposed convolutions 1-3 on tensor cores in BF16 (wgmma + TMA implicit GEMMs), "
      "linear FP32, RGB layer on BF16 inputs",
      {M::kSubpixel, M::kSubpixel, M::kSubpixel, M::kSubpixel},
      true,
      false,
      ComputePrecision::kBf16};
  if (precision != ComputePrecision::kBf16)
    throw std::invalid_argument(std::string("--precision ") + cudalabs::precision_name(precision) +
                                ": lab 11's tensor-core layers are built for bf16 only");
  return kBf16;
}

std::string tensor_core_unavailable(ComputePrecision precision) {
  if (precision != ComputePrecision::kBf16)
    return std::string("lab 11's tensor-core layers are built for bf16 only, not ") +
           cudalabs::precision_name(precision);
  return tconv_subpixel_bf16_unavailable();
}

}  // namespace lab11
