// Lab 11's `best` where it splits K and the launch sums the slices itself (unit_finish.cuh,
// common/split_finish.cuh): the same bits as the two-kernel sum a stream being captured into a
// graph takes instead (both add the slices in one order), and the same bits when split GEMMs run
// on several streams at once, each counting on words of its own (common/arrival_words.h).
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/gemm_variant.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "labs/11_tensor_cores/lab.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using cudalabs::Bf16GemmArgs;
using cudalabs::DeviceBuffer;

// A GEMM's operands on the GPU, drawn from `seed`; C starts poisoned.
struct Problem {
  cudalabs::GemmShape shape;
  DeviceBuffer<__nv_bfloat16> a, b;
  DeviceBuffer<float> c;
  float beta;

  Problem(cudalabs::GemmShape s, float beta_, std::uint64_t seed)
      : shape(s),
        a(static_cast<std::size_t>(s.m) * s.k),
        b(static_cast<std::size_t>(s.k) * s.n),
        c(static_cast<std::size_t>(s.m) * s.n),
        beta(beta_) {
    cudalabs::fill_uniform_device(a.data(), a.size(), seed);
    cudalabs::fill_uniform_device(b.data(), b.size(), seed + 1);
    reset_c();
  }
  // C back to the same values before each run (beta != 0 reads it).
  void reset_c() {
    cudalabs::fill_uniform_device(c.data(), c.size(), 77);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  Bf16GemmArgs args() {
    return {shape.m,  shape.n, shape.k, 1.5f,     a.data(), shape.k,
            b.data(), shape.n, beta,    c.data(), shape.n};
  }
};

// Why `best` does not split here: no Hopper kernels, or the build's kernel writes nothing yet.
std::string why_best_does_not_split() {
  for (const lab11::TensorCoreVariant& variant : lab11::variants()) {
    if (std::string(variant.name) != "warp_specialized") continue;
    if (const std::string reason = cudalabs::unavailable_reason(variant); !reason.empty())
      return "best splits K only on Hopper: " + reason;
  }
  Problem probe({21, 544, 5224}, 0.0f, 5);
  cudalabs::poison_device(probe.c.data(), probe.c.size() * sizeof(float));
  lab11::best_gemm(probe.args(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = probe.c.to_host();
  const std::vector<float> poison = cudalabs::poisoned_host(out.size());
  if (std::memcmp(out.data(), poison.data(), out.size() * sizeof(float)) == 0)
    return "best's warp-specialized kernel writes nothing yet (not implemented)";
  return "";
}

// C after one `best` on a stream of its own, in place (the default path).
std::vector<float> run_on_stream(Problem& problem, cudaStream_t stream) {
  problem.reset_c();
  lab11::best_gemm(problem.args(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return problem.c.to_host();
}

// The split shapes: C of one tile and of a few, beta 0 and not.
const cudalabs::GemmShape kSplitShapes[] = {{21, 544, 5224}, {163, 216, 13649}, {130, 72, 4100}};

TEST(Lab11SplitFinish, CapturedGraphGivesTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = why_best_does_not_split(); !why.empty()) GTEST_SKIP() << why;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const cudalabs::GemmShape& shape : kSplitShapes) {
    Problem problem(shape, shape.m % 2 == 0 ? 0.5f : 0.0f, 11);
    const std::vector<float> in_place = run_on_stream(problem, stream);
    // The same GEMM captured into a graph: the two-kernel path (no arrival words lent).
    problem.reset_c();
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    lab11::best_gemm(problem.args(), stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> two_kernels = problem.c.to_host();
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    ASSERT_EQ(in_place.size(), two_kernels.size());
    EXPECT_EQ(std::memcmp(in_place.data(), two_kernels.data(), in_place.size() * sizeof(float)), 0)
        << shape.label() << ": the in-place sum differs from the summing kernel's";
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(Lab11SplitFinish, TwoStreamsAtOnceGiveTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = why_best_does_not_split(); !why.empty()) GTEST_SKIP() << why;
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Problem first(kSplitShapes[0], 0.25f, 21), second(kSplitShapes[2], 0.0f, 31);
  const std::vector<float> alone[2] = {run_on_stream(first, streams[0]),
                                       run_on_stream(second, streams[1])};
  // Both enqueued again and again, alternating, with no wait between: each run must see only its
  // own arrivals. beta = 0 for the second, so its C stays the same run after run; the first's C is
  // reset before the last run to compare it.
  for (int round = 0; round < 20; ++round) {
    lab11::best_gemm(second.args(), streams[1]);
    if (round == 19) {
      CUDA_CHECK(cudaStreamSynchronize(streams[0]));
      first.reset_c();
    }
    lab11::best_gemm(first.args(), streams[0]);
  }
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  const std::vector<float> together[2] = {first.c.to_host(), second.c.to_host()};
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(std::memcmp(alone[i].data(), together[i].data(), alone[i].size() * sizeof(float)), 0)
        << "GEMM " << i << " on two streams at once differs from its run alone";
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
}

TEST(Lab11SplitFinish, MoreStreamsThanKeepWordsGiveTheSameBits) {
  CUDALABS_REQUIRE_GPU();
  if (const std::string why = why_best_does_not_split(); !why.empty()) GTEST_SKIP() << why;
  // More streams than keep words at once (common/arrival_words.h): the later ones take the words
  // of the earlier, which must have finished with them.
  constexpr int kStreams = 20;
  std::vector<cudaStream_t> streams(kStreams);
  std::vector<std::unique_ptr<Problem>> problems;
  std::vector<std::vector<float>> alone;
  for (int i = 0; i < kStreams; ++i) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    problems.push_back(std::make_unique<Problem>(kSplitShapes[i % 3], 0.0f, 100 + i));
    alone.push_back(run_on_stream(*problems.back(), streams[i]));
  }
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < kStreams; ++i) lab11::best_gemm(problems[i]->args(), streams[i]);
  for (int i = 0; i < kStreams; ++i) {
    CUDA_CHECK(cudaStreamSynchronize(streams[i]));
    const std::vector<float> again = problems[i]->c.to_host();
    EXPECT_EQ(std::memcmp(alone[i].data(), again.data(), again.size() * sizeof(float)), 0)
        << "GEMM " << i << " of " << kStreams << " streams differs from its run alone";
    CUDA_CHECK(cudaStreamDestroy(streams[i]));
  }
}

}  // namespace
