// Lab 07 solution, the challenge's 128-bit loads on rows of any alignment (best's tile kernels and
// the narrow kernel share them).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace lab07 {
namespace {

// Four consecutive floats as loaded off 16-byte alignment: the two aligned 128-bit chunks that hold
// them and how far into the first they start. Only settle() puts them in place, where they are
// used: a load's value taken at once (a shift right after the load) makes the warp wait for
// memory there, so the next tile's loads no longer overlap this tile's FFMAs (issue 53: lab 07's
// best ran misaligned shapes at a third of its aligned speed).
struct ShiftedFour {
  float4 low;   // the aligned chunk holding the first float
  float4 high;  // the next chunk (not loaded, and not read, when shift is 0)
  int shift;    // floats between low's start and the first float: 0-3
};

// Loads the four floats at p, no bounds tests, the selection left to settle(). Their bytes before p
// and after p + 3 lie in 16-byte chunks that hold a float of the matrix, so inside its allocation,
// except past the matrix's last float: with kMayPassEnd, where the second chunk would reach past
// `end` (one past the matrix's last float), four scalar loads instead (shift 0). A caller that
// knows its loads are far from the end passes false and saves a branch a load. The second chunk's
// load is predicated (no branch: the lanes of a warp may differ in shift).
template <bool kMayPassEnd>
__device__ __forceinline__ ShiftedFour load_four_shifted(const float* __restrict__ p,
                                                         const float* end) {
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
  ShiftedFour v;
  v.shift = static_cast<int>(address >> 2) & 3;
  v.high = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float4* chunk = reinterpret_cast<const float4*>(address & ~std::uintptr_t{15});
  if (kMayPassEnd && v.shift != 0 && reinterpret_cast<const float*>(chunk + 2) > end) {
    v.low = make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
    v.shift = 0;
    return v;
  }
  v.low = __ldg(chunk);
  asm("{\n"
      "  .reg .pred second;\n"
      "  setp.ne.s32 second, %4, 0;\n"
      "  @second ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%5];\n"
      "}\n"
      : "+f"(v.high.x), "+f"(v.high.y), "+f"(v.high.z), "+f"(v.high.w)
      : "r"(v.shift), "l"(chunk + 1));
  return v;
}

// The four floats of a ShiftedFour in place: selects, no branch (lanes of a warp may hold
// different shifts: the rows of A when K % 4 != 0). No shift reads high.w, so the compiler would
// give its register to another value as soon as the load is issued, and writing that value would
// wait for the load (measured: a third of the stalls of wide_128x64 at 6938 x 544 x 911, issue
// 53): the empty asm keeps high.w alive until here.
__device__ __forceinline__ float4 settle(const ShiftedFour& v) {
  asm volatile("" ::"f"(v.high.w));
  const float window[7] = {v.low.x, v.low.y, v.low.z, v.low.w, v.high.x, v.high.y, v.high.z};
  float out[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    out[q] = v.shift == 0   ? window[q]
             : v.shift == 1 ? window[q + 1]
             : v.shift == 2 ? window[q + 2]
                            : window[q + 3];
  }
  return make_float4(out[0], out[1], out[2], out[3]);
}

// Four consecutive floats that lie inside the matrix, no bounds tests, in place at once: one
// 128-bit load when the rows are aligned, else load_four_shifted's two (a predicated wide path
// rather than a scalar fallback). For a value used right away; a value loaded ahead of its use
// keeps the ShiftedFour until then.
template <bool kVector>
__device__ __forceinline__ float4 load_four_inside(const float* __restrict__ p, const float* end) {
  if (kVector) return __ldg(reinterpret_cast<const float4*>(p));
  return settle(load_four_shifted<true>(p, end));
}

}  // namespace
}  // namespace lab07
