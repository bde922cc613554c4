// common's own kernel: built for CMAKE_CUDA_ARCHITECTURES like every lab's kernels, so that
// cudaFuncGetAttributes on it tells which code this build gives the GPU (common/build_report.h).
#include "common/build_report.h"

namespace cudalabs {
namespace {

// Never launched: only its attributes are read.
__global__ void build_probe(int* architecture) {
#ifdef __CUDA_ARCH__
  *architecture = __CUDA_ARCH__;
#else
  (void)architecture;
#endif
}

}  // namespace

const void* build_probe_kernel() {
  return reinterpret_cast<const void*>(&build_probe);
}

}  // namespace cudalabs
