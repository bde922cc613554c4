// The GPU's room for the sliced kernel's clusters (launch.cuh, sliced_cluster_room), the runtime's
// answer beside a probe's count; then lab 11's short-K kernel with K cut into a cluster's slices
// (short_k.cuh, run_short_k) at every count of slices from 2 to the GPU's most (and K whole where
// K <= kShortKMaxK), at shapes and layouts given on the command line, beside `best` and cuBLAS
// BF16, in one process.
//
//   bench_cluster_room11 MxNxK[+PA,PB,PC,OFF] ...
//
// The probe: for clusters of each count of blocks, twice as many clusters as the runtime says fit
// at once, each block alone on its SM (shared memory past half an SM's), each spinning 40 us
// from its start; clusters whose blocks all started before the first block ended ran at once.
// PA, PB, PC: elements added to lda, ldb and ldc; OFF: elements between each allocation's start and
// its matrix (OFF 1: BF16 rows 2-byte aligned, OFF 2: 4-byte). Per shape and plan: C (poisoned
// first) against cuBLAS's on the same operands (relative L2 difference, at most 4 sqrt(K) 2^-24:
// sums of K products in another order), then GPU times a launch
// (CUDA graphs of R launches, replayed; rounds interleaved, medians of 7) of every plan, of `best`
// and of cuBLAS, and the host's time a call of `best` (R calls between two events).
// Lines: "room blocks runtime_clusters probed_clusters", then per shape "plan label a_bytes
// b_bytes slices slice_k graph_us predicted_us rel_l2 fits" (fits: the room holds a cluster a
// tile at once), then "best label best_graph_us best_host_us cublas_graph_us cublas_host_us
// chosen_slices rel_l2".
#include "kernels.cu"  // the solution's kernels and launch.cuh, in this translation unit

#include "bench_support.cuh"

namespace {

struct LaidOut {
  int m = 0, n = 0, k = 0, pa = 0, pb = 0, pc = 0, off = 0;
  __nv_bfloat16 *a = nullptr, *b = nullptr;
  float *c = nullptr, *ref = nullptr;
  std::size_t c_count = 0;

  cudalabs::Bf16GemmArgs args(float* into) const {
    return {m, n, k, 1.0f, a + off, k + pa, b + off, n + pb, 0.0f, into + off, n + pc};
  }
};

bool parse(const char* text, LaidOut& g) {
  const int read =
      std::sscanf(text, "%dx%dx%d+%d,%d,%d,%d", &g.m, &g.n, &g.k, &g.pa, &g.pb, &g.pc, &g.off);
  if ((read == 3 || read == 7) && g.m >= 1 && g.n >= 1 && g.k >= 1 && g.pa >= 0 && g.pb >= 0 &&
      g.pc >= 0 && g.off >= 0)
    return true;
  std::fprintf(stderr, "bad shape '%s'\n", text);
  return false;
}

double relative_l2(const LaidOut& g, const std::vector<float>& ours,
                   const std::vector<float>& theirs) {
  double diff = 0, norm = 0;
  for (int r = 0; r < g.m; ++r)
    for (int j = 0; j < g.n; ++j) {
      const std::size_t at = g.off + static_cast<std::size_t>(r) * (g.n + g.pc) + j;
      const double d = static_cast<double>(ours[at]) - theirs[at];
      diff += d * d;
      norm += static_cast<double>(theirs[at]) * theirs[at];
    }
  return std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
}

// A block of the probe: its start and end on the global timer, 40 us apart.
__global__ void probe_cluster_kernel(unsigned long long* starts, unsigned long long* ends) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  const unsigned long long start = now;
  while (now - start < 40000) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0) {
    starts[block] = start;
    ends[block] = now;
  }
}

// Clusters of `blocks` blocks (along y) that ran at once, a block an SM: of `clusters` launched,
// those whose blocks all started before the first block ended.
int probed_clusters(int blocks, int clusters, int alone_bytes) {
  const int total = blocks * clusters;
  unsigned long long *starts = nullptr, *ends = nullptr;
  CK(cudaMalloc(&starts, total * sizeof(unsigned long long)));
  CK(cudaMalloc(&ends, total * sizeof(unsigned long long)));
  const void* kernel = reinterpret_cast<const void*>(&probe_cluster_kernel);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, alone_bytes));
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim = {1, static_cast<unsigned>(blocks), 1};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(clusters, blocks);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = static_cast<std::size_t>(alone_bytes);
  config.attrs = &cluster;
  config.numAttrs = 1;
  CK(cudaLaunchKernelEx(&config, probe_cluster_kernel, starts, ends));
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> started_at(total), ended_at(total);
  CK(cudaMemcpy(started_at.data(), starts, total * sizeof(unsigned long long),
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ended_at.data(), ends, total * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaFree(starts));
  CK(cudaFree(ends));
  const unsigned long long first_end = *std::min_element(ended_at.begin(), ended_at.end());
  int at_once = 0;
  for (int c = 0; c < clusters; ++c) {
    bool started = true;
    for (int y = 0; y < blocks; ++y) started = started && started_at[y * clusters + c] < first_end;
    at_once += started;
  }
  return at_once;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MxNxK[+PA,PB,PC,OFF] ...\n", argv[0]);
    return 1;
  }
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudalabs::CublasHandle cublas;
  std::mt19937 rng(20261204);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const int sms = cudalabs::multiprocessor_count();
  const lab11::ClusterRoom& room = lab11::sliced_cluster_room();
  int most = 1, sm_bytes = 0;
  for (int blocks = 2; blocks <= lab11::kMaxClusterSlices; ++blocks)
    if (room.clusters_of(blocks) > 0) most = blocks;
  CK(cudaDeviceGetAttribute(&sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  std::printf("# most slices %d, %d SMs\n", most, sms);
  for (int blocks = 2; blocks <= most; ++blocks)
    std::printf("room %d %d %d\n", blocks, room.clusters_of(blocks),
                probed_clusters(blocks, 2 * room.clusters_of(blocks), sm_bytes / 2 + 1));
  for (const int stages : {2, lab11::kSlicedStages})
    for (const int a_bytes : {16, 4, 2})
      for (const int b_bytes : {16, 4, 2}) {
        cudaFuncAttributes at{};
        const lab11::ShortKPlan plan{stages == 2 ? 1 : 2, 32, 0.0};
        CK(cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(
                                          lab11::short_k_kernel_for({a_bytes, b_bytes}, plan))));
        std::printf("# kernel stages %d a %d b %d: %d registers, %zu bytes local\n", stages,
                    a_bytes, b_bytes, at.numRegs, at.localSizeBytes);
      }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    LaidOut g;
    if (!parse(argv[i], g)) return 1;
    const std::size_t a_count = static_cast<std::size_t>(g.m) * (g.k + g.pa) + g.off;
    const std::size_t b_count = static_cast<std::size_t>(g.k) * (g.n + g.pb) + g.off;
    g.c_count = static_cast<std::size_t>(g.m) * (g.n + g.pc) + g.off;
    std::vector<__nv_bfloat16> a(a_count), b(b_count);
    for (auto& x : a) x = __float2bfloat16(uniform(rng));
    for (auto& x : b) x = __float2bfloat16(uniform(rng));
    CK(cudaMalloc(&g.a, a_count * 2));
    CK(cudaMalloc(&g.b, b_count * 2));
    CK(cudaMalloc(&g.c, g.c_count * 4));
    CK(cudaMalloc(&g.ref, g.c_count * 4));
    CK(cudaMemcpy(g.a, a.data(), a_count * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.b, b.data(), b_count * 2, cudaMemcpyHostToDevice));
    const cudalabs::Bf16GemmArgs args = g.args(g.c), reference = g.args(g.ref);
    const lab11::ShortKCopies copies = lab11::short_k_copies(args);
    CK(cudaMemset(g.ref, 0xff, g.c_count * 4));
    cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
    CK(cudaStreamSynchronize(stream));
    std::vector<float> theirs(g.c_count), ours(g.c_count);
    CK(cudaMemcpy(theirs.data(), g.ref, g.c_count * 4, cudaMemcpyDeviceToHost));

    // The plans: K whole where the kernel takes it, then every count of slices that fits.
    std::vector<lab11::ShortKPlan> plans;
    if (g.k <= lab11::kShortKMaxK)
      plans.push_back({1, g.k, lab11::predicted_short_k_us(args.shape(), copies, sms)});
    for (int slices = 2; slices <= most; ++slices) {
      const int slice_k = cudalabs::ceil_div(cudalabs::ceil_div(g.k, slices), lab11::kShortKChunk) *
                          lab11::kShortKChunk;
      if (cudalabs::ceil_div(g.k, slice_k) != slices) continue;
      plans.push_back({slices, slice_k, lab11::predicted_sliced_us(args.shape(), copies, slice_k)});
    }
    const double tolerance = 4.0 * std::sqrt(static_cast<double>(g.k)) * std::ldexp(1.0, -24);
    std::vector<double> errors;
    for (const auto& plan : plans) {
      CK(cudaMemset(g.c, 0xff, g.c_count * 4));
      lab11::run_short_k(args, plan, stream);
      CK(cudaStreamSynchronize(stream));
      CK(cudaGetLastError());
      CK(cudaMemcpy(ours.data(), g.c, g.c_count * 4, cudaMemcpyDeviceToHost));
      errors.push_back(relative_l2(g, ours, theirs));
      if (!(errors.back() < tolerance)) ++failures;
    }
    // best's C too
    CK(cudaMemset(g.c, 0xff, g.c_count * 4));
    lab11::launch_best(args, stream);
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(ours.data(), g.c, g.c_count * 4, cudaMemcpyDeviceToHost));
    const double best_error = relative_l2(g, ours, theirs);
    if (!(best_error < tolerance)) ++failures;

    const double one_ms = bench::elapsed_ms(stream, [&] { lab11::launch_best(args, stream); });
    const int repeats = std::clamp(static_cast<int>(0.5 / std::max(one_ms, 1e-3)), 5, 100);
    std::vector<cudaGraphExec_t> execs;
    const auto capture = [&](const std::function<void()>& call) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int r = 0; r < repeats; ++r) call();
      CK(cudaStreamEndCapture(stream, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      CK(cudaGraphDestroy(graph));
      execs.push_back(exec);
    };
    for (const auto& plan : plans) capture([&] { lab11::run_short_k(args, plan, stream); });
    capture([&] { lab11::launch_best(args, stream); });
    capture([&] { cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream); });
    std::vector<std::function<void()>> calls;
    for (const cudaGraphExec_t exec : execs)
      calls.push_back([&, exec] { CK(cudaGraphLaunch(exec, stream)); });
    calls.push_back([&] {
      for (int r = 0; r < repeats; ++r) lab11::launch_best(args, stream);
    });
    calls.push_back([&] {
      for (int r = 0; r < repeats; ++r)
        cudalabs::cublas_gemm_bf16_row_major(cublas, reference, stream);
    });
    const std::vector<double> us = bench::interleaved_us(stream, calls, repeats);
    for (std::size_t p = 0; p < plans.size(); ++p)
      std::printf("plan %s %d %d %d %d %.2f %.2f %.2e %d\n", argv[i], copies.a_bytes,
                  copies.b_bytes, plans[p].slices, plans[p].slice_k, us[p], plans[p].predicted_us,
                  errors[p],
                  plans[p].slices == 1 ||
                      lab11::short_k_blocks(args.shape()) <= room.clusters_of(plans[p].slices));
    const std::size_t at = plans.size();
    std::printf("best %s %.2f %.2f %.2f %.2f %d %.2e\n", argv[i], us[at], us[at + 2], us[at + 1],
                us[at + 3], lab11::planned_short_k(args).slices, best_error);
    std::fflush(stdout);
    for (const cudaGraphExec_t exec : execs) CK(cudaGraphExecDestroy(exec));
    CK(cudaFree(g.a));
    CK(cudaFree(g.b));
    CK(cudaFree(g.c));
    CK(cudaFree(g.ref));
  }
  CK(cudaStreamDestroy(stream));
  if (failures) std::fprintf(stderr, "%d plans differ from cuBLAS\n", failures);
  return failures ? 3 : 0;
}
