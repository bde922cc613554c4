/// @file labs/13_attention/attention_naive.cuh
/// @brief Lab 13, given (read it before step 4): attention_naive, attention as its definition reads
/// and as a framework without fusion runs it, in three kernels. One thread per score computes
/// S = scale * q . k in FP32 (keys after the query -infinity under the causal mask) into a
/// sequence x sequence array per head; your softmax_online (step 2) turns each row into
/// probabilities in place (launch.cuh runs it between the two kernels); one thread per output sums
/// P[i][j] * V[j][c]. The scores go through memory between the three kernels. It is the
/// specification the fused kernels must meet, and the rung they are timed against.
///
/// One more row of zeros follows the scores (the workspace's last `sequence` floats), run through
/// the softmax with them: any softmax turns it into 1 / sequence. While it still reads 0, your
/// softmax_online has not run (step 2 not written yet), and the outputs are left unwritten, so
/// that the rung reads "not implemented yet" instead of a wrong result.
///
/// Head h (of batch * heads) has its Q, K, V and O at h * sequence * head_dim, each row head_dim
/// BF16 long; the kernels name the head in a grid dimension (z for the scores, y for the outputs).
#pragma once

#include "lab.h"

#include <cuda_bf16.h>

#include <cstddef>

namespace lab13 {
namespace {

// Thread (x, y) of a 16 x 16 block: key blockIdx.x * 16 + x and query blockIdx.y * 16 + y of head
// blockIdx.z.
__global__ void attention_scores_kernel(AttentionArgs args, float* scores) {
  const AttentionShape& shape = args.shape;
  const int key = blockIdx.x * blockDim.x + threadIdx.x;
  const int query = blockIdx.y * blockDim.y + threadIdx.y;
  if (query >= shape.sequence || key >= shape.sequence) return;
  const std::size_t head = blockIdx.z;
  const std::size_t head_offset = head * shape.sequence * shape.head_dim;
  const __nv_bfloat16* q = args.q + head_offset + static_cast<std::size_t>(query) * shape.head_dim;
  const __nv_bfloat16* k = args.k + head_offset + static_cast<std::size_t>(key) * shape.head_dim;
  float dot = 0.0f;
  for (int c = 0; c < shape.head_dim; ++c) dot += __bfloat162float(q[c]) * __bfloat162float(k[c]);
  const bool masked = shape.causal && key > query;
  scores[(head * shape.sequence + query) * shape.sequence + key] =
      masked ? -INFINITY : dot * args.scale;
  if (head == 0 && query == 0) {  // the row after every head's scores: zeros, for the softmax
    const std::size_t rows = static_cast<std::size_t>(gridDim.z) * shape.sequence;
    scores[rows * shape.sequence + key] = 0.0f;
  }
}

// Thread c of block (query = blockIdx.x, head = blockIdx.y): O[query][c].
__global__ void attention_values_kernel(AttentionArgs args, const float* probabilities) {
  const AttentionShape& shape = args.shape;
  const int query = blockIdx.x, column = threadIdx.x;
  const std::size_t head = blockIdx.y;
  const std::size_t rows = static_cast<std::size_t>(gridDim.y) * shape.sequence;
  if (probabilities[rows * shape.sequence] == 0.0f) return;  // no softmax ran: O stays unwritten
  const float* p = probabilities + (head * shape.sequence + query) * shape.sequence;
  const __nv_bfloat16* v = args.v + head * shape.sequence * shape.head_dim + column;
  const int keys = shape.causal ? query + 1 : shape.sequence;  // the rest have probability 0
  float sum = 0.0f;
  for (int j = 0; j < keys; ++j)
    sum += p[j] * __bfloat162float(v[static_cast<std::size_t>(j) * shape.head_dim]);
  args.o[(head * shape.sequence + query) * shape.head_dim + column] = __float2bfloat16(sum);
}

}  // namespace
}  // namespace lab13
