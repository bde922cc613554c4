// The DCGAN generator's layer sequence on tensor cores (given code, the same in both builds): it
// converts the weights once and calls dcgan_linear_layer.cu for the linear layer with its tail,
// step 7's kernel for the three wide transposed convolutions and dcgan_rgb_layer.cu for the RGB
// layer.
#include "tensor_core_generator.h"

#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/poison.h"
#include "dcgan_layers.h"
#include "labs/09_dcgan/lab.h"

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

std::size_t TensorCoreLayers::device_bytes(int max_batch, ComputePrecision precision) {
  // The two activation buffers (largest inputs: 4x4x512 and 16x16x128 / 8x8x256 and 32x32x64 per
  // image), 2 bytes a value in BF16, 4 in TF32.
  const std::size_t images = static_cast<std::size_t>(max_batch);
  const std::size_t value = precision == ComputePrecision::kBf16 ? 2 : 4;
  return images * (16 * 16 * 128 + 32 * 32 * 64) * value;
}

TensorCoreLayers::TensorCoreLayers(const dcgan::Weights& weights, int max_batch,
                                   ComputePrecision precision)
    : precision_(precision), max_batch_(max_batch) {
  if (precision == ComputePrecision::kFp32)
    throw std::invalid_argument(
        "--precision fp32: lab 11's tensor-core layers take bf16 or tf32 (lab 09's are FP32)");
  if (max_batch < 1)
    throw std::invalid_argument("--batch = " + std::to_string(max_batch) + " must be >= 1");
  cudalabs::require_device_memory(device_bytes(max_batch, precision),
                                  "--batch " + std::to_string(max_batch));
  const bool bf16 = precision == ComputePrecision::kBf16;
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
    if (bf16) {
      bf16_filter_[l] = upload(to_bf16(packed));
    } else {
      tf32_filter_[l] =
          upload(transposed_packed_filter(packed, shape.in_channels, shape.out_channels));
    }
    lab09::fold_batch_norm(weights[t + ".bias"], weights[b + ".scale"], weights[b + ".offset"],
                           weights[b + ".mean"], weights[b + ".variance"], a, shift);
    scale_[l] = upload(a);
    shift_[l] = upload(shift);
  }
  const std::size_t images = static_cast<std::size_t>(max_batch);
  if (bf16) {
    bf16_even_ = cudalabs::DeviceBuffer<__nv_bfloat16>(images * 16 * 16 * 128);
    bf16_odd_ = cudalabs::DeviceBuffer<__nv_bfloat16>(images * 32 * 32 * 64);
  } else {
    tf32_even_ = cudalabs::DeviceBuffer<float>(images * 16 * 16 * 128);
    tf32_odd_ = cudalabs::DeviceBuffer<float>(images * 32 * 32 * 64);
  }
}

void TensorCoreLayers::poison_activations() {
  const auto poison = [](auto& buffer) {
    if (buffer.size() > 0) cudalabs::poison_device(buffer.data(), buffer.bytes());
  };
  poison(bf16_even_);
  poison(bf16_odd_);
  poison(tf32_even_);
  poison(tf32_odd_);
}

void TensorCoreLayers::run(const float* latents, int count, float* images, cudaStream_t stream,
                           const std::function<void(int)>& boundary) {
  if (count < 1 || count > max_batch_)
    throw std::invalid_argument("lab11 tensor-core generator: count = " + std::to_string(count) +
                                " is outside 1.." + std::to_string(max_batch_));
  if (precision_ == ComputePrecision::kBf16) {
    run_layers(latents, bf16_even_.data(), bf16_odd_.data(), count, images, stream, boundary);
  } else {
    run_layers(latents, tf32_even_.data(), tf32_odd_.data(), count, images, stream, boundary);
  }
}

template <class T>
void TensorCoreLayers::run_layers(const float* latents, T* even, T* odd, int count, float* images,
                                  cudaStream_t stream, const std::function<void(int)>& boundary) {
  constexpr bool kBf16 = sizeof(T) == 2;
  boundary(0);
  linear_bn_relu(latents, count, dcgan::kLatent, linear_weight_.data(), kLinearOut,
                 linear_scale_.data(), linear_shift_.data(), even, stream);
  T* in = even;
  T* out = odd;
  for (int l = 1; l <= 3; ++l) {
    boundary(l);
    SubpixelArgs<T> args;
    args.shape = dcgan::generator_layer(l, count);
    args.input = in;
    args.output = out;
    args.scale = scale_[l].data();
    args.shift = shift_[l].data();
    args.relu = true;
    if constexpr (kBf16) {
      args.filter = bf16_filter_[l].data();
      tconv_subpixel_bf16(args, stream);
    } else {
      args.filter = tf32_filter_[l].data();
      tconv_subpixel_tf32(args, stream);
    }
    std::swap(in, out);
  }
  boundary(4);
  const dcgan::TconvShape rgb = dcgan::generator_layer(4, count);
  if constexpr (kBf16) {
    tconv_rgb_bf16_input(rgb, in, rgb_filter_.data(), rgb_bias_.data(), images, stream);
  } else {
    tconv_rgb_tf32_input(rgb, in, rgb_filter_.data(), rgb_bias_.data(), images, stream);
  }
  boundary(5);
}

const lab09::DcganVariant& tensor_core_variant(ComputePrecision precision) {
  using M = lab09::TconvMethod;
  static const lab09::DcganVariant kBf16{
      "dcgan_bf16",
      "lab 11: transposed convolutions 1-3 on tensor cores in BF16 (wgmma + TMA implicit GEMMs), "
      "linear on TF32 tensor cores in three products (FP32 accuracy), RGB layer on mma.sync",
      {M::kSubpixel, M::kSubpixel, M::kSubpixel, M::kSubpixel},
      true,
      false,
      ComputePrecision::kBf16};
  static const lab09::DcganVariant kTf32{
      "dcgan_tf32",
      "lab 11: transposed convolutions 1-3 on tensor cores in TF32 (wgmma + TMA implicit GEMMs), "
      "linear on TF32 tensor cores in three products (FP32 accuracy), RGB layer on mma.sync",
      {M::kSubpixel, M::kSubpixel, M::kSubpixel, M::kSubpixel},
      true,
      false,
      ComputePrecision::kTf32};
  if (precision == ComputePrecision::kFp32)
    throw std::invalid_argument(
        "--precision fp32: lab 11's tensor-core layers take bf16 or tf32 (lab 09's are FP32)");
  return precision == ComputePrecision::kBf16 ? kBf16 : kTf32;
}

std::string tensor_core_unavailable(ComputePrecision precision) {
  if (precision == ComputePrecision::kFp32)
    return "lab 11's tensor-core layers take bf16 or tf32, not fp32";
  return tconv_subpixel_unavailable();
}

}  // namespace lab11
