/// @file common/tensor_map_encoder.h
/// @brief The driver's cuTensorMapEncodeTiled, found through the runtime so that nothing links
/// libcuda: what every lab that builds tensor maps for the copy engine (TMA) calls.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

namespace cudalabs {

/// cuTensorMapEncodeTiled (CUDA 12's version); throws std::runtime_error when the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder();

}  // namespace cudalabs
