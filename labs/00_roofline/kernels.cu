// Lab 00: the roofline. YOUR KERNELS GO HERE.
//
// Two kernels measure the two ceilings every later lab is judged against:
//  - copy_kernel moves count floats from src to dst: its bytes (read + written) per second is the
//    memory bandwidth a real kernel can reach.
//  - fma_kernel does nothing but fused multiply-adds on registers: its FLOP/s is the FP32 rate.
// The launches (launch.cuh) are done for you: 256 threads per block; copy_kernel gets a grid that
// fills the machine (so loop with a grid stride), fma_kernel gets one thread per output.
#include <cstddef>

#include "lab.h"

namespace lab00 {
namespace {

__global__ void copy_kernel(const float* __restrict__ src, float* __restrict__ dst,
                            std::size_t count) {
  // TODO(lab00): copy count floats with a grid-stride loop:
  //   for (i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
  //   dst[i] = src[i];
  // Then make it fast: when src and dst are 16-byte aligned, copy float4s (one 128-bit load and
  // store per thread and step) and finish the last count % 4 elements separately. Keep the scalar
  // loop for misaligned pointers.
  (void)src;
  (void)dst;
  (void)count;
}

__global__ void fma_kernel(float* out, long long threads, int iterations) {
  // TODO(lab00): thread t (t < threads) starts kFmaChains values x[c] = fma_start_value(t, c), then
  // `iterations` times updates every chain: x[c] = fmaf(x[c], kFmaMultiplier, kFmaAddend); finally
  // it writes x[0] + x[1] + ... (in chain order) to out[t]. The chains are independent, so the
  // scheduler can issue one while the others wait for their previous FMA: unroll the loops.
  (void)out;
  (void)threads;
  (void)iterations;
}

}  // namespace
}  // namespace lab00

#include "launch.cuh"
