#include "common/gemm_device_compare.h"

#include "common/cuda_check.h"
#include "common/device_buffer.h"

#include <math_constants.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cudalabs {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kChunk = kThreads * 32;  // elements per block: fixed, so the sums are too
constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;

// One chunk's (or one thread's) share of a comparison, combined in a fixed order.
struct Partial {
  long long checked = 0, unwritten = 0, first_unwritten = -1, over_bound = 0, non_finite = 0;
  long long worst_index = -1;
  double worst_ratio = 0.0, worst_got = 0.0, worst_expected = 0.0, worst_bound = 0.0;
  double error_squares = 0.0, reference_squares = 0.0;
};

// `later` holds elements after or among `earlier`'s: the worst is the largest ratio, the first
// element of it on a tie, as the serial loop keeps it.
__host__ __device__ void combine(Partial& earlier, const Partial& later) {
  earlier.checked += later.checked;
  earlier.unwritten += later.unwritten;
  if (later.first_unwritten >= 0 &&
      (earlier.first_unwritten < 0 || later.first_unwritten < earlier.first_unwritten))
    earlier.first_unwritten = later.first_unwritten;
  earlier.over_bound += later.over_bound;
  earlier.non_finite += later.non_finite;
  if (later.worst_index >= 0 &&
      (earlier.worst_index < 0 || later.worst_ratio > earlier.worst_ratio ||
       (later.worst_ratio == earlier.worst_ratio && later.worst_index < earlier.worst_index))) {
    earlier.worst_index = later.worst_index;
    earlier.worst_ratio = later.worst_ratio;
    earlier.worst_got = later.worst_got;
    earlier.worst_expected = later.worst_expected;
    earlier.worst_bound = later.worst_bound;
  }
  earlier.error_squares += later.error_squares;
  earlier.reference_squares += later.reference_squares;
}

struct KernelArguments {
  const float* c;
  DeviceGemmReference reference;
  double gamma;
  long long elements;  // m * n
};

__global__ void compare_kernel(KernelArguments args, Partial* partials) {
  // Raw storage: a __shared__ array may not have a constructor to run.
  __shared__ alignas(Partial) unsigned char storage[kThreads * sizeof(Partial)];
  Partial* shares = reinterpret_cast<Partial*>(storage);
  const DeviceGemmReference& ref = args.reference;
  Partial mine;
  const long long begin = static_cast<long long>(blockIdx.x) * kChunk;
  const long long end = begin + kChunk < args.elements ? begin + kChunk : args.elements;
  const double beta = ref.beta;
  for (long long s = begin + threadIdx.x; s < end; s += kThreads) {
    const long long row = s / ref.n, col = s % ref.n;
    const long long at = row * ref.ldc + col;
    const float stored = args.c[at];
    ++mine.checked;
    if (__float_as_uint(stored) == kPoisonBits) {
      if (mine.unwritten++ == 0) mine.first_unwritten = s;
      continue;
    }
    if (ref.product == nullptr) continue;  // counting the unwritten only
    const double got = stored;
    double expected = ref.product[at], magnitude = ref.product_magnitude[at];
    if (beta != 0.0) {
      const double old = ref.old_c[at];
      expected += beta * old;
      magnitude += fabs(beta) * fabs(old);
    }
    const bool finite = isfinite(got);
    const double error = fabs(got - expected);
    const double bound = args.gamma * magnitude + kGemmAbsoluteFloor;
    const double ratio = finite ? error / bound : CUDART_INF;
    if (ratio > 1.0) ++mine.over_bound;
    if (!finite) ++mine.non_finite;
    if (mine.worst_index < 0 || ratio > mine.worst_ratio) {
      mine.worst_index = s;
      mine.worst_ratio = ratio;
      mine.worst_got = got;
      mine.worst_expected = expected;
      mine.worst_bound = bound;
    }
    mine.error_squares += finite ? error * error : CUDART_INF;
    mine.reference_squares += expected * expected;
  }
  shares[threadIdx.x] = mine;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) combine(shares[threadIdx.x], shares[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shares[0];
}

// The padding elements (columns n .. ldc - 1 of the m rows) whose bits changed.
__global__ void padding_kernel(const float* c, const float* before, int m, int n, int ldc,
                               unsigned long long* changed) {
  const long long width = ldc - n;
  const long long count = static_cast<long long>(m) * width;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const long long at = (i / width) * ldc + n + i % width;
    const std::uint32_t expected = before ? __float_as_uint(before[at]) : kPoisonBits;
    mine += __float_as_uint(c[at]) != expected;
  }
  if (mine > 0) atomicAdd(changed, mine);
}

__global__ void gather_kernel(const float* c, int n, int ldc, const long long* positions,
                              long long count, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = c[(positions[i] / n) * ldc + positions[i] % n];
}

}  // namespace

DeviceGemmComparison compare_gemm_device(const float* c, const DeviceGemmReference& reference,
                                         int k, GemmTolerance tolerance,
                                         const float* padding_before) {
  if (reference.m < 1 || reference.n < 1 || reference.ldc < reference.n) {
    throw std::invalid_argument("compare_gemm_device: C is " + std::to_string(reference.m) + " x " +
                                std::to_string(reference.n) + " with ldc " +
                                std::to_string(reference.ldc));
  }
  if (k < 1)
    throw std::invalid_argument("compare_gemm_device: k = " + std::to_string(k) + " must be >= 1");
  if (reference.product != nullptr && (reference.product_magnitude == nullptr ||
                                       (reference.beta != 0.0f && reference.old_c == nullptr))) {
    throw std::invalid_argument("compare_gemm_device: a product without its magnitude or old C");
  }
  const long long elements = static_cast<long long>(reference.m) * reference.n;
  const long long chunks = (elements + kChunk - 1) / kChunk;
  DeviceBuffer<Partial> partials(static_cast<std::size_t>(chunks));
  DeviceBuffer<unsigned long long> changed(1);
  CUDA_CHECK(cudaMemset(changed.data(), 0, sizeof(unsigned long long)));
  compare_kernel<<<static_cast<unsigned int>(chunks), kThreads>>>(
      KernelArguments{c, reference, element_gamma(k, tolerance), elements}, partials.data());
  CUDA_CHECK(cudaGetLastError());
  if (reference.ldc > reference.n) {
    padding_kernel<<<1024, kThreads>>>(c, padding_before, reference.m, reference.n, reference.ldc,
                                       changed.data());
    CUDA_CHECK(cudaGetLastError());
  }
  const std::vector<Partial> shares = partials.to_host();
  const std::vector<unsigned long long> padding = changed.to_host();

  Partial all;
  for (const Partial& share : shares) combine(all, share);
  DeviceGemmComparison result;
  result.padding_changes = static_cast<std::int64_t>(padding[0]);
  GemmComparison& out = result.comparison;
  out.checked = all.checked;
  out.unwritten = all.unwritten;
  if (all.first_unwritten >= 0) {
    out.first_unwritten_row = static_cast<int>(all.first_unwritten / reference.n);
    out.first_unwritten_col = static_cast<int>(all.first_unwritten % reference.n);
  }
  out.relative_l2_bound = relative_l2_bound(k, tolerance);
  if (reference.product == nullptr) return result;
  out.over_bound = all.over_bound;
  out.non_finite = all.non_finite;
  if (all.worst_index >= 0) {
    out.worst_row = static_cast<int>(all.worst_index / reference.n);
    out.worst_col = static_cast<int>(all.worst_index % reference.n);
    out.worst_ratio = all.worst_ratio;
    out.worst_got = all.worst_got;
    out.worst_expected = all.worst_expected;
    out.worst_bound = all.worst_bound;
  }
  out.relative_l2 = relative_l2_of(all.error_squares, all.reference_squares);
  return result;
}

std::vector<float> gather_gemm_elements(const float* c, int n, int ldc,
                                        std::span<const std::int64_t> positions) {
  if (positions.empty()) return {};
  DeviceBuffer<long long> device_positions(positions.size());
  static_assert(sizeof(long long) == sizeof(std::int64_t));
  CUDA_CHECK(cudaMemcpy(device_positions.data(), positions.data(),
                        positions.size() * sizeof(long long), cudaMemcpyHostToDevice));
  DeviceBuffer<float> values(positions.size());
  const long long count = static_cast<long long>(positions.size());
  gather_kernel<<<static_cast<unsigned int>((count + kThreads - 1) / kThreads), kThreads>>>(
      c, n, ldc, device_positions.data(), count, values.data());
  CUDA_CHECK(cudaGetLastError());
  return values.to_host();
}

}  // namespace cudalabs
