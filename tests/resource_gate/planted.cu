// Kernels whose resources the resource gate's self-test knows from ptxas itself (--resource-usage):
// static shared memory with launch bounds, and one that keeps many values live in registers.
__global__ void __launch_bounds__(256) planted_shared(float* out) {
  __shared__ float tile[9000];
  for (int i = threadIdx.x; i < 9000; i += blockDim.x) tile[i] = out[i];
  __syncthreads();
  out[threadIdx.x] = tile[8999 - threadIdx.x];
}

__global__ void planted_registers(const float* in, float* out) {
  float values[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) values[i] = in[i * blockDim.x + threadIdx.x];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) sum += values[i] * values[63 - i];
  out[threadIdx.x] = sum;
}
