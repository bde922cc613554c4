// Lab 07 solution, the challenge's 128-bit loads on rows of any alignment (best's tile kernels and
// the narrow kernel share them).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace lab07 {
namespace {

// Four consecutive floats that lie inside the matrix, no bounds tests: one 128-bit load when the
// rows are aligned. Off alignment (a row of N % 4 != 0 floats, or a matrix that starts off 16
// bytes), the two aligned 128-bit chunks that hold the four floats, shifted into place: two wide
// loads instead of four scalar ones, the same lines read (a predicated wide path rather than a
// scalar fallback). Their bytes before p and after p + 3 lie in 16-byte chunks that hold a float
// of the matrix, so inside its allocation, except past the matrix's last float: where the second
// chunk would reach past `end` (one past the matrix's last float), four scalar loads instead.
template <bool kVector>
__device__ __forceinline__ float4 load_four_inside(const float* __restrict__ p, const float* end) {
  if (kVector) return __ldg(reinterpret_cast<const float4*>(p));
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
  const int shift = static_cast<int>(address >> 2) & 3;  // floats past the aligned chunk's start
  const float4* chunk = reinterpret_cast<const float4*>(address & ~std::uintptr_t{15});
  const bool second_inside = reinterpret_cast<const float*>(chunk + 2) <= end;
  if (shift != 0 && !second_inside)
    return make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
  const float4 low = __ldg(chunk);
  const float4 high = shift != 0 ? __ldg(chunk + 1) : low;
  switch (shift) {
    case 1:
      return make_float4(low.y, low.z, low.w, high.x);
    case 2:
      return make_float4(low.z, low.w, high.x, high.y);
    case 3:
      return make_float4(low.w, high.x, high.y, high.z);
    default:
      return low;
  }
}

}  // namespace
}  // namespace lab07
