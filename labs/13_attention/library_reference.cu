#include "library_reference.h"

#include "common/cublas_gemm.h"
#include "common/cuda_check.h"

#include <cmath>

namespace lab13_library {

namespace {

constexpr int kThreads = 256;

// One block per row of scores: the causal mask, the row's maximum and sum, probabilities in BF16.
__global__ void __launch_bounds__(kThreads)
    masked_softmax_kernel(const float* scores, __nv_bfloat16* probabilities, int sequence,
                          bool causal) {
  __shared__ float partial[kThreads / 32];
  const std::size_t row = blockIdx.x;
  const int query = static_cast<int>(row % sequence);
  const int keys = causal ? query + 1 : sequence;
  const float* s = scores + row * sequence;
  __nv_bfloat16* p = probabilities + row * sequence;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < keys; j += kThreads) m = fmaxf(m, s[j]);
  for (int offset = 16; offset > 0; offset /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, offset));
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = m;
  __syncthreads();
  m = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) m = fmaxf(m, partial[w]);
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < keys; j += kThreads) sum += expf(s[j] - m);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  sum = 0.0f;
  for (int w = 0; w < kThreads / 32; ++w) sum += partial[w];
  const float inverse = 1.0f / sum;
  for (int j = threadIdx.x; j < sequence; j += kThreads)
    p[j] = __float2bfloat16(j < keys ? expf(s[j] - m) * inverse : 0.0f);
}

}  // namespace

std::size_t CublasAttention::workspace_bytes(const AttentionShape& shape) {
  const std::size_t scores =
      static_cast<std::size_t>(shape.heads_total()) * shape.sequence * shape.sequence;
  return scores * (sizeof(float) + sizeof(__nv_bfloat16));
}

CublasAttention::CublasAttention(const AttentionShape& shape) : shape_(shape) {
  CUBLAS_CHECK(cublasCreate(&handle_));
  const std::size_t scores =
      static_cast<std::size_t>(shape.heads_total()) * shape.sequence * shape.sequence;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&scores_), scores * sizeof(float)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&probabilities_), scores * sizeof(__nv_bfloat16)));
}

CublasAttention::~CublasAttention() {
  (void)cudaFree(scores_);
  (void)cudaFree(probabilities_);
  (void)cublasDestroy(handle_);
}

void CublasAttention::run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                          __nv_bfloat16* o, float scale, cudaStream_t stream) {
  const int s = shape_.sequence, d = shape_.head_dim;
  const int heads = static_cast<int>(shape_.heads_total());
  const long long stride_qkv = static_cast<long long>(s) * d,
                  stride_scores = static_cast<long long>(s) * s;
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle_, stream));
  // cuBLAS is column-major: the row-major S (s x s) is the column-major S^T = K Q^T, with the
  // row-major Q and K the column-major Q^T and K^T (d x s each).
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, s, s, d, &scale, k,
                                          CUDA_R_16BF, d, stride_qkv, q, CUDA_R_16BF, d, stride_qkv,
                                          &zero, scores_, CUDA_R_32F, s, stride_scores, heads,
                                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  masked_softmax_kernel<<<static_cast<unsigned>(static_cast<long long>(heads) * s), kThreads, 0,
                          stream>>>(scores_, probabilities_, s, shape_.causal);
  CUDA_CHECK_LAUNCH("lab13 reference masked_softmax_kernel");
  // The row-major O (s x d) is the column-major O^T = V^T P^T: V^T is the row-major V read
  // column-major (d x s), P^T the row-major P read column-major (s x s).
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, d, s, s, &one, v,
                                          CUDA_R_16BF, d, stride_qkv, probabilities_, CUDA_R_16BF,
                                          s, stride_scores, &zero, o, CUDA_R_16BF, d, stride_qkv,
                                          heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace lab13_library
