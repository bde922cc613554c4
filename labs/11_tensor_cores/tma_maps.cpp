#include "tma_maps.h"

#include "common/cuda_check.h"
#include "common/tensor_map_encoder.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lab11 {

namespace {

// How much of L2 a box's read brings in at once from DRAM: 128 bytes. With rows off 128-byte
// lines each 128-byte row of a box spans two lines, and 256 bytes brought in for each made the
// warp-specialized kernel up to 1.3 times as slow on the H100 and never 0.5 % faster (4096 x 4096
// x 4104 on 128-wide tiles 305.6 us against 236.7, 6431 x 3976 x 3448 591.8 against 498.7;
// docs/data/history/lab11_tail_split_s43_nvidia-h100/, bench_lines).
constexpr CUtensorMapL2promotion kOperandPromotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;

}  // namespace

CUtensorMap bf16_tensor_map(const __nv_bfloat16* matrix, int rows, int cols, int ld, int box_rows) {
  if (reinterpret_cast<std::uintptr_t>(matrix) % 16 != 0)
    throw std::invalid_argument("lab11 tensor map: the matrix is not 16-byte aligned");
  if (ld % 8 != 0)
    throw std::invalid_argument("lab11 tensor map: ld = " + std::to_string(ld) +
                                " is not a multiple of 8 (rows must start 16 bytes apart)");
  if (box_rows < 1 || box_rows > 256)
    throw std::invalid_argument("lab11 tensor map: box_rows = " + std::to_string(box_rows) +
                                " is outside 1 .. 256");
  // The last maps this thread encoded, by everything a map is made of: a GEMM called again on the
  // same operands (a training loop, a benchmark) skips the driver's encoding, a microsecond of host
  // time per operand that a small GEMM's GPU time does not hide. Enough of them for the operands of
  // a network's layers, or of a benchmark's rotating input sets, in turn (four were thrashed by 8
  // sets of A and B, every call encoding two maps).
  struct Encoded {
    const __nv_bfloat16* matrix;
    int rows, cols, ld, box_rows;
    CUtensorMap map;
  };
  constexpr int kRemembered = 64;
  thread_local Encoded remembered[kRemembered] = {};
  thread_local int next = 0;
  for (const Encoded& known : remembered) {
    if (known.matrix == matrix && known.rows == rows && known.cols == cols && known.ld == ld &&
        known.box_rows == box_rows)
      return known.map;
  }
  CUtensorMap map{};
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t row_stride[1] = {static_cast<cuuint64_t>(ld) * sizeof(__nv_bfloat16)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kBoxColumns),
                             static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_stride[2] = {1, 1};
  const CUresult result = cudalabs::tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(matrix), size,
      row_stride, box, element_stride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      kOperandPromotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("lab11: cuTensorMapEncodeTiled refused a " + std::to_string(rows) +
                             " x " + std::to_string(cols) + " map (ld " + std::to_string(ld) +
                             "): CUresult " + std::to_string(static_cast<int>(result)));
  }
  remembered[next] = {matrix, rows, cols, ld, box_rows, map};
  next = (next + 1) % kRemembered;
  return map;
}

namespace {

// The maps below for an element of `bytes` bytes and driver type `type`: the 4-D activations.
CUtensorMap activation_map_of(const void* activations, CUtensorMapDataType type, int bytes,
                              int batch, int height, int width, int channels, int box_rows,
                              int box_images, int box_columns) {
  const int box_channels = 128 / bytes;
  if (reinterpret_cast<std::uintptr_t>(activations) % 16 != 0)
    throw std::invalid_argument("lab11 activation map: the activations are not 16-byte aligned");
  if (channels % box_channels != 0)
    throw std::invalid_argument("lab11 activation map: channels = " + std::to_string(channels) +
                                " is not a multiple of " + std::to_string(box_channels));
  if (box_columns == 0) box_columns = width;
  for (const int box : {box_columns, box_rows, box_images}) {
    if (box < 1 || box > 256)
      throw std::invalid_argument("lab11 activation map: a box of " + std::to_string(box) +
                                  " is outside 1 .. 256");
  }
  CUtensorMap map{};
  const cuuint64_t size[4] = {static_cast<cuuint64_t>(channels), static_cast<cuuint64_t>(width),
                              static_cast<cuuint64_t>(height), static_cast<cuuint64_t>(batch)};
  const cuuint64_t pixel = static_cast<cuuint64_t>(channels) * bytes;
  const cuuint64_t strides[3] = {pixel, pixel * width, pixel * width * height};
  const cuuint32_t box[4] = {
      static_cast<cuuint32_t>(box_channels), static_cast<cuuint32_t>(box_columns),
      static_cast<cuuint32_t>(box_rows), static_cast<cuuint32_t>(box_images)};
  const cuuint32_t element_stride[4] = {1, 1, 1, 1};
  const CUresult result = cudalabs::tensor_map_encoder()(
      &map, type, 4, const_cast<void*>(activations), size, strides, box, element_stride,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("lab11: cuTensorMapEncodeTiled refused a " + std::to_string(batch) +
                             " x " + std::to_string(height) + " x " + std::to_string(width) +
                             " x " + std::to_string(channels) + " activation map: CUresult " +
                             std::to_string(static_cast<int>(result)));
  }
  return map;
}

}  // namespace

CUtensorMap fp32_tensor_map(const float* matrix, int rows, int cols, int ld, int box_rows) {
  if (reinterpret_cast<std::uintptr_t>(matrix) % 16 != 0)
    throw std::invalid_argument("lab11 tensor map: the matrix is not 16-byte aligned");
  if (ld % 4 != 0)
    throw std::invalid_argument("lab11 tensor map: ld = " + std::to_string(ld) +
                                " is not a multiple of 4 (rows must start 16 bytes apart)");
  if (box_rows < 1 || box_rows > 256)
    throw std::invalid_argument("lab11 tensor map: box_rows = " + std::to_string(box_rows) +
                                " is outside 1 .. 256");
  CUtensorMap map{};
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t row_stride[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};
  const cuuint32_t box[2] = {32, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_stride[2] = {1, 1};
  const CUresult result = cudalabs::tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(matrix), size, row_stride, box,
      element_stride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("lab11: cuTensorMapEncodeTiled refused a " + std::to_string(rows) +
                             " x " + std::to_string(cols) + " FP32 map (ld " + std::to_string(ld) +
                             "): CUresult " + std::to_string(static_cast<int>(result)));
  }
  return map;
}

CUtensorMap activation_map(const __nv_bfloat16* activations, int batch, int height, int width,
                           int channels, int box_rows, int box_images, int box_columns) {
  return activation_map_of(activations, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, batch, height, width,
                           channels, box_rows, box_images, box_columns);
}

CUtensorMap activation_map(const float* activations, int batch, int height, int width, int channels,
                           int box_rows, int box_images, int box_columns) {
  return activation_map_of(activations, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, batch, height, width,
                           channels, box_rows, box_images, box_columns);
}

CUtensorMap phase_output_map(__nv_bfloat16* output, int batch, int height, int width,
                             int channels) {
  if (reinterpret_cast<std::uintptr_t>(output) % 16 != 0)
    throw std::invalid_argument("lab11 phase output map: the output is not 16-byte aligned");
  if (channels % kBoxColumns != 0)
    throw std::invalid_argument("lab11 phase output map: channels = " + std::to_string(channels) +
                                " is not a multiple of " + std::to_string(kBoxColumns));
  if (width < 1 || (width & (width - 1)) != 0)
    throw std::invalid_argument("lab11 phase output map: width = " + std::to_string(width) +
                                " is not a power of two");
  CUtensorMap map{};
  const cuuint64_t c = static_cast<cuuint64_t>(channels), w = static_cast<cuuint64_t>(width);
  const cuuint64_t size[5] = {c, 2, w, 2,
                              static_cast<cuuint64_t>(batch) * static_cast<cuuint64_t>(height)};
  // Bytes from one px, j, py and r to the next: a pixel, two pixels, an output row, two rows.
  const cuuint64_t strides[4] = {2 * c, 4 * c, 4 * w * c, 8 * w * c};
  const cuuint32_t box[5] = {static_cast<cuuint32_t>(kBoxColumns), 1,
                             static_cast<cuuint32_t>(std::min(width, kPhaseBoxPixels)), 1,
                             static_cast<cuuint32_t>(std::max(1, kPhaseBoxPixels / width))};
  const cuuint32_t element_stride[5] = {1, 1, 1, 1, 1};
  const CUresult result = cudalabs::tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 5, output, size, strides, box, element_stride,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("lab11: cuTensorMapEncodeTiled refused a " + std::to_string(batch) +
                             " x " + std::to_string(2 * height) + " x " +
                             std::to_string(2 * width) + " x " + std::to_string(channels) +
                             " phase output map: CUresult " +
                             std::to_string(static_cast<int>(result)));
  }
  return map;
}

}  // namespace lab11
