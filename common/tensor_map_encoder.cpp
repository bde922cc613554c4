#include "tensor_map_encoder.h"

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace cudalabs {

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* pointer = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &pointer, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || pointer == nullptr)
      throw std::runtime_error("the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(pointer);
  }();
  return function;
}

}  // namespace cudalabs
