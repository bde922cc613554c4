// Lab 07 solution, the challenge's loads of four consecutive floats of a row at any alignment
// (best's tile kernels and the narrow kernel share them).
#pragma once

#include <cuda_runtime.h>

namespace lab07 {
namespace {

// Four consecutive floats that lie inside the matrix, no bounds tests: one 128-bit load when the
// rows are 16-byte aligned, else four scalar loads. The caller uses them only after the FFMAs
// they overlap, which keeps the scalar path at 0.76-0.96 of the vector path's speed (kScalarRate,
// tiles.h): reading the two aligned 128-bit chunks around the four and shifting them into place
// (half the requests) measured slower on all tiles but one, because the shift needs the loads'
// values at once, and the register of the chunk's unused fourth float is handed to another value
// whose write waits for the load (issue 53: docs/data/history/lab07_shifted_loads_*).
template <bool kVector>
__device__ __forceinline__ float4 load_four_inside(const float* __restrict__ p) {
  if (kVector) return __ldg(reinterpret_cast<const float4*>(p));
  return make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
}

}  // namespace
}  // namespace lab07
