// GEMM launchers with planted bugs, to prove the verification harness catches each kind of mistake
// a student makes (and passes a correct kernel).
#pragma once

#include "common/gemm_types.h"

#include <cuda_runtime.h>

namespace cudalabs::planted {

void correct(const GemmArgs& args, cudaStream_t stream);         ///< a plain correct kernel
void writes_nothing(const GemmArgs& args, cudaStream_t stream);  ///< a TODO kernel
void skips_last_row(const GemmArgs& args, cudaStream_t stream);  ///< never writes row m - 1
void skips_last_k_tile(const GemmArgs& args,
                       cudaStream_t stream);  ///< drops the partial last tile of 32 along K
void writes_padding(const GemmArgs& args,
                    cudaStream_t stream);  ///< also writes column n when ldc > n
void reads_c_when_beta_zero(const GemmArgs& args,
                            cudaStream_t stream);  ///< computes beta * C even for beta = 0
void one_wrong_element(
    const GemmArgs& args,
    cudaStream_t stream);  ///< C(m/2, n/2) off by 1 (an index slip at one element)

}  // namespace cudalabs::planted
