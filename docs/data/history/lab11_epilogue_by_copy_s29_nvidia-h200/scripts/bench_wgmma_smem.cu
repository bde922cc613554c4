// How fast the tensor cores run the sub-pixel kernel's stage shapes when shared memory feeds both
// operands, with and without the copy engine refilling the stages beside them (issue 54).
//
//   bench_wgmma_smem [iterations]
//
// One block an SM, two consumer warpgroups and a producer warp. A stage holds kTaps taps: an A box
// (the pixels, or turned the filter) and each tap's B; every operand element is 1.0, so every
// accumulator ends at an exact count the host checks. Variants (per consumer, per k16 step):
//   now2x128  : two m64n128 (A: 64 pixel rows each, K-major; B: the filter, 128 channels MN-major)
//               = tconv2's un-turned consumer today
//   turn256c  : one m64n256, A the consumer's 64 filter channels (MN-major), B 256 pixels
//   (K-major),
//               both consumers the same pixels = tconv2 turned
//   now1x128t : one m64n128, A 64 filter channels (MN-major), B the consumer's 128 pixels
//               = tconv3 today
//   turn256p  : one m64n256, A 64 filter channels (MN-major), B the consumer's 256 pixels
//               = tconv3 with two images a tile
//   one256    : one m64n256, A 64 pixel rows (K-major), B 256 filter channels (MN-major) = tconv1
// Each runs with the stages refilled by bulk copies from L2 (copy) or not (nocopy), releasing a
// stage after its own wgmmas finish (wait0) or after the next stage's are issued (wait1).
// Prints TFLOP/s over the GPU and B/clk of shared memory per SM the wgmmas read.
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e = (x);                                                             \
    if (e != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace ptx = lab11::ptx;

struct Now2x128 {  // tconv2 today: A 256 pixel rows (+16 halo), B 128 channels a tap
  static constexpr int kN = 128, kBlocks = 2, kARows = 256 + 16, kBRowsPerTap = 128, kTaps = 3;
  static constexpr bool kTurned = false;
  static constexpr const char* name = "now2x128";
};
struct Turn256c {  // tconv2 turned: the same stage; consumer c takes channels 64c..
  static constexpr int kN = 256, kBlocks = 1, kARows = 256 + 16, kBRowsPerTap = 128, kTaps = 3;
  static constexpr bool kTurned = true, kSharedPixels = true;
  static constexpr const char* name = "turn256c";
};
struct Now1x128t {  // tconv3 today: 256 pixels, 64 channels
  static constexpr int kN = 128, kBlocks = 1, kARows = 256 + 32, kBRowsPerTap = 64, kTaps = 3;
  static constexpr bool kTurned = true, kSharedPixels = false;
  static constexpr const char* name = "now1x128t";
};
struct Turn256p {  // tconv3, two images a tile: 512 pixels, 64 channels
  static constexpr int kN = 256, kBlocks = 1, kARows = 512 + 32, kBRowsPerTap = 64, kTaps = 3;
  static constexpr bool kTurned = true, kSharedPixels = false;
  static constexpr const char* name = "turn256p";
};
struct One256 {  // tconv1: 128 pixels, 256 channels
  static constexpr int kN = 256, kBlocks = 1, kARows = 128 + 16, kBRowsPerTap = 256, kTaps = 1;
  static constexpr bool kTurned = false;
  static constexpr const char* name = "one256";
};

template <class V>
constexpr int stage_bytes() {
  return ((V::kARows + V::kTaps * V::kBRowsPerTap) * 128 + 1023) / 1024 * 1024;
}
template <class V>
constexpr int stages() {
  return std::min(4, (220 * 1024) / stage_bytes<V>());
}
// Bytes of shared memory the wgmmas of one consumer's k16 step read.
template <class V>
constexpr double step_read_bytes() {
  return V::kTurned ? V::kBlocks * (64 * 32 + V::kN * 32) : V::kBlocks * (64 * 32 + V::kN * 32);
}

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, int bytes,
                                          std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(ptx::shared_address(dst)),
      "l"(src), "r"(bytes), "r"(ptx::shared_address(bar))
      : "memory");
}

// One stage's wgmmas for this consumer.
template <class V>
__device__ __forceinline__ void issue_stage(float (&acc)[V::kBlocks][V::kN / 2], std::uint32_t base,
                                            int consumer) {
  const std::uint32_t a_box = base, b_taps = base + V::kARows * 128;
  ptx::wgmma_fence();
#pragma unroll
  for (int t = 0; t < V::kTaps; ++t) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      if constexpr (V::kTurned) {
        // A: 64 filter channels MN-major (a 64 x 64 panel of the tap's B rows), k16 = 2048 bytes.
        const std::uint32_t panel =
            b_taps + t * V::kBRowsPerTap * 128 + (V::kSharedPixels ? consumer * 8192 : 0);
        const std::uint64_t a = ptx::wgmma_descriptor(panel + kk * 2048, 8192, 1024);
        // B: pixel rows K-major, 32 bytes a k16, row offset t x 8.
        const int first = V::kSharedPixels ? 0 : consumer * V::kN;
        const std::uint64_t b =
            ptx::wgmma_descriptor(a_box + (first + 8 * t) * 128 + kk * 32, 16, 1024);
        if constexpr (V::kN == 256)
          ptx::wgmma_bf16_a_mn<256>(acc[0], a, b, 1);
        else
          ptx::wgmma_bf16_a_mn<128>(acc[0], a, b, 1);
      } else {
        const std::uint64_t b =
            ptx::wgmma_descriptor(b_taps + t * V::kBRowsPerTap * 128 + kk * 2048, 8192, 1024);
#pragma unroll
        for (int h = 0; h < V::kBlocks; ++h) {
          const int first = (consumer * V::kBlocks + h) * 64 + 8 * t;
          const std::uint64_t a = ptx::wgmma_descriptor(a_box + first * 128 + kk * 32, 16, 1024);
          ptx::wgmma_bf16<V::kN>(acc[h], a, b, 1);
        }
      }
    }
  }
  ptx::wgmma_commit();
}

template <class V, bool kCopy, int kDepth>
__global__ void __launch_bounds__(384, 1)
    bench_kernel(const unsigned char* source, std::size_t source_bytes, int iterations,
                 float* out) {
  extern __shared__ __align__(1024) unsigned char dynamic_shared[];
  unsigned char* shared = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(dynamic_shared) + 1023) / 1024 * 1024);
  constexpr int kStages = stages<V>(), kStageBytes = stage_bytes<V>();
  __shared__ std::uint64_t full[4], empty[4];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], 8);
    }
    ptx::fence_barrier_init();
  }
  // Ones everywhere (copies overwrite them with the same ones).
  for (int i = threadIdx.x; i < kStages * kStageBytes / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(shared)[i] = 0x3F803F80u;
  ptx::fence_proxy_async_shared();
  __syncthreads();
  const int group = threadIdx.x / 128;
  if (group == 0) {
    if (kCopy && threadIdx.x == 0) {
      const std::size_t slice = 256 * 1024;
      const unsigned char* mine = source + (blockIdx.x * slice) % (source_bytes - slice);
      int s = 0, phase = 0;
      std::size_t offset = 0;
      for (int i = 0; i < iterations; ++i) {
        ptx::mbarrier_wait(&empty[s], 1 - phase);  // a fresh barrier passes parity 1
        ptx::mbarrier_arrive_expect_bytes(&full[s], kStageBytes);
        for (int piece = 0; piece < kStageBytes; piece += 16384) {
          const int bytes = std::min(16384, kStageBytes - piece);
          if (offset + bytes > slice) offset = 0;
          bulk_copy(shared + s * kStageBytes + piece, mine + offset, bytes, &full[s]);
          offset += bytes;
        }
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }
  const int consumer = group - 1, lane = threadIdx.x % 32;
  float acc[V::kBlocks][V::kN / 2];
  for (auto& block : acc)
    for (float& v : block) v = 0.0f;
  for (auto& block : acc) ptx::wgmma_hold(block);
  const std::uint32_t base = ptx::shared_address(shared);
  int s = 0, phase = 0, previous = -1;
  for (int i = 0; i < iterations; ++i) {
    if (kCopy) ptx::mbarrier_wait(&full[s], phase);
    issue_stage<V>(acc, base + s * kStageBytes, consumer);
    if constexpr (kDepth == 0) {
      ptx::wgmma_wait<0>();
      if (kCopy && lane == 0) ptx::mbarrier_arrive(&empty[s]);
    } else {
      ptx::wgmma_wait<1>();
      if (kCopy && lane == 0 && previous >= 0) ptx::mbarrier_arrive(&empty[previous]);
      previous = s;
    }
    if (++s == kStages) {
      s = 0;
      phase ^= 1;
    }
  }
  ptx::wgmma_wait<0>();
  for (auto& block : acc) ptx::wgmma_hold(block);
  const float expected = 16.0f * 4 * V::kTaps * iterations;
  bool right = true;
  for (auto& block : acc)
    for (float v : block) right = right && v == expected;
  out[blockIdx.x * 256 + threadIdx.x - 128] = right ? 1.0f : 0.0f;
}

template <class V, bool kCopy, int kDepth>
void run(const unsigned char* source, std::size_t source_bytes, int sms, int iterations, float* out,
         double clock_ghz) {
  auto kernel = bench_kernel<V, kCopy, kDepth>;
  const int shared = stages<V>() * stage_bytes<V>() + 1024;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int r = 0; r < 6; ++r) {
    CK(cudaMemset(out, 0, sms * 256 * sizeof(float)));
    CK(cudaEventRecord(start));
    kernel<<<sms, 384, shared>>>(source, source_bytes, iterations, out);
    CK(cudaGetLastError());
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float t = 0;
    CK(cudaEventElapsedTime(&t, start, stop));
    if (r > 0) ms.push_back(t);  // the first is a warm-up
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::vector<float> host(sms * 256);
  CK(cudaMemcpy(host.data(), out, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int wrong = static_cast<int>(std::count(host.begin(), host.end(), 0.0f));
  const double steps = 2.0 * 4 * V::kTaps * double(iterations);  // consumers' k16 steps a block
  const double flop = steps * V::kBlocks * 2.0 * 64 * V::kN * 16 * sms;
  const double seconds = median * 1e-3;
  const double read_bpc = steps * step_read_bytes<V>() / (seconds * clock_ghz * 1e9);
  const double copy_bpc =
      kCopy ? double(iterations) * stage_bytes<V>() / (seconds * clock_ghz * 1e9) : 0;
  std::printf(
      "%-10s %-6s wait%d stages %d stage_kb %5.1f  %7.1f TFLOP/s  smem read %5.1f B/clk  copy "
      "%5.1f B/clk  %s\n",
      V::name, kCopy ? "copy" : "nocopy", kDepth, stages<V>(), stage_bytes<V>() / 1024.0,
      flop / seconds * 1e-12, read_bpc, copy_bpc, wrong ? "WRONG" : "ok");
  std::fflush(stdout);
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
}

template <class V>
void run_all(const unsigned char* source, std::size_t bytes, int sms, int iterations, float* out,
             double ghz) {
  run<V, false, 0>(source, bytes, sms, iterations, out, ghz);
  run<V, false, 1>(source, bytes, sms, iterations, out, ghz);
  run<V, true, 0>(source, bytes, sms, iterations, out, ghz);
  run<V, true, 1>(source, bytes, sms, iterations, out, ghz);
}

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double ghz = clock_khz * 1e-6;
  std::printf("%s, %d SMs, %.2f GHz (the B/clk columns use this clock), %d stages a launch\n",
              prop.name, prop.multiProcessorCount, ghz, iterations);
  const std::size_t bytes = 40u << 20;  // within L2
  unsigned char* source;
  CK(cudaMalloc(&source, bytes));
  std::vector<std::uint32_t> ones(bytes / 4, 0x3F803F80u);
  CK(cudaMemcpy(source, ones.data(), bytes, cudaMemcpyHostToDevice));
  float* out;
  CK(cudaMalloc(&out, prop.multiProcessorCount * 256 * sizeof(float)));
  const int sms = prop.multiProcessorCount;
  run_all<One256>(source, bytes, sms, iterations, out, ghz);
  run_all<Now2x128>(source, bytes, sms, iterations, out, ghz);
  run_all<Turn256c>(source, bytes, sms, iterations, out, ghz);
  run_all<Now1x128t>(source, bytes, sms, iterations, out, ghz);
  run_all<Turn256p>(source, bytes, sms, iterations, out, ghz);
  return 0;
}
