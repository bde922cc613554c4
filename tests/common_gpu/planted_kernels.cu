#include "tests/common_gpu/planted_kernels.h"

#include "common/cuda_check.h"
#include "common/launch_utils.h"

namespace cudalabs::planted {
namespace {

enum class Bug {
  kNone,
  kSkipLastRow,
  kSkipLastKTile,
  kWritePadding,
  kReadCWhenBetaZero,
  kOneWrongElement
};

template <Bug kBug>
__global__ void planted_gemm(GemmArgs args) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= args.m || col >= args.n) return;
  if (kBug == Bug::kSkipLastRow && row == args.m - 1) return;
  const int k_end = (kBug == Bug::kSkipLastKTile && args.k > 32) ? args.k / 32 * 32 : args.k;
  float acc = 0.0f;
  for (int p = 0; p < k_end; ++p) acc += args.a[row * args.lda + p] * args.b[p * args.ldb + col];
  float* c = args.c + row * args.ldc + col;
  float result = (kBug == Bug::kReadCWhenBetaZero || args.beta != 0.0f)
                     ? fmaf(args.beta, *c, args.alpha * acc)
                     : args.alpha * acc;
  if (kBug == Bug::kOneWrongElement && row == args.m / 2 && col == args.n / 2) result += 1.0f;
  *c = result;
  if (kBug == Bug::kWritePadding && col == args.n - 1 && args.ldc > args.n) c[1] = 0.0f;
}

template <Bug kBug>
void launch(const GemmArgs& args, cudaStream_t stream) {
  validate_gemm_args(args, "planted");
  const dim3 block(16, 16);
  planted_gemm<kBug><<<checked_grid(ceil_div(args.n, 16), ceil_div(args.m, 16), 1, "planted"),
                       block, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("planted_gemm");
}

__global__ void empty_kernel(GemmArgs) {}

}  // namespace

void correct(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kNone>(args, stream);
}
void skips_last_row(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kSkipLastRow>(args, stream);
}
void skips_last_k_tile(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kSkipLastKTile>(args, stream);
}
void writes_padding(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kWritePadding>(args, stream);
}
void reads_c_when_beta_zero(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kReadCWhenBetaZero>(args, stream);
}
void one_wrong_element(const GemmArgs& args, cudaStream_t stream) {
  launch<Bug::kOneWrongElement>(args, stream);
}

void writes_nothing(const GemmArgs& args, cudaStream_t stream) {
  validate_gemm_args(args, "planted");
  empty_kernel<<<1, 32, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH("empty_kernel");
}

}  // namespace cudalabs::planted
