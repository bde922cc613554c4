// Lab 11 driver: verifies and times the tensor-core GEMM rungs against cuBLAS in BF16 and TF32,
// and the FP16 rungs (for GPUs of compute capability 7.5) against cuBLAS in FP16.
#include "common/gemm_lab_driver.h"
#include "lab.h"

namespace {

// What the rungs need of the GPU and of the build: the first lines say which this one lacks.
constexpr cudalabs::BuildFeature kFeatures[] = {
    {"BF16 tensor cores (wmma, mma.sync)", 80, "wmma_global wmma_pipelined mma_swizzled best",
     "are skipped (the FP16 rungs wmma_fp16 and mma_fp16 run instead)"},
    {"cp.async", 80, "wmma_pipelined", "would copy through registers"},
    {"ldmatrix and FP16 mma.sync", 75, "mma_fp16", "is skipped"},
    {"wgmma and TMA", 90,
     "wgmma tma_wgmma warp_specialized warp_specialized_128 warp_specialized_64x128",
     "are skipped (best runs mma_swizzled)", true},
};

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::gemm_lab_main(
      cudalabs::TensorCoreLab{
          "lab11",
          "tensor cores: WMMA, mma.sync, Hopper's wgmma and TMA (BF16 or FP16 in, FP32 sums)",
          lab11::variants(), lab11::fp16_variants(), kFeatures},
      argc, argv);
}
