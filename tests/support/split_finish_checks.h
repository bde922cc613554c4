/// @file tests/support/split_finish_checks.h
/// @brief Checks of a `best` that splits K and sums the parts in the launch that wrote them
/// (common/split_finish.cuh): the same bits as the two-kernel sum a stream being captured into a
/// graph takes instead (both add the parts in one order), and the same bits when split GEMMs run
/// on several streams at once, more than keep arrival words (common/arrival_words.h). Header only:
/// each lab's test instantiates it with its own `best` and input type.
#pragma once

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/gemm_types.h"
#include "common/poison.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cudalabs::testing {

/// A lab's `best`: C = alpha A B + beta C on `stream`.
template <class Input>
using BestGemm = void (*)(const GemmArgsOf<Input>&, cudaStream_t);

/// A GEMM's operands on the GPU, drawn from `seed`, tight row-major.
template <class Input>
struct SplitProblem {
  GemmShape shape;
  DeviceBuffer<Input> a, b;
  DeviceBuffer<float> c;
  float beta;

  SplitProblem(GemmShape s, float beta_, std::uint64_t seed)
      : shape(s),
        a(static_cast<std::size_t>(s.m) * s.k),
        b(static_cast<std::size_t>(s.k) * s.n),
        c(static_cast<std::size_t>(s.m) * s.n),
        beta(beta_) {
    fill_uniform_device(a.data(), a.size(), seed);
    fill_uniform_device(b.data(), b.size(), seed + 1);
    reset_c();
  }
  /// C back to the same values (beta != 0 reads them).
  void reset_c() {
    fill_uniform_device(c.data(), c.size(), 77);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  GemmArgsOf<Input> args() {
    return {shape.m,  shape.n, shape.k, 1.5f,     a.data(), shape.k,
            b.data(), shape.n, beta,    c.data(), shape.n};
  }
};

/// Why these checks mean nothing here: `best` leaves a split shape's C as it was (its kernel writes
/// nothing yet: not implemented). Empty when it writes.
template <class Input>
std::string best_writes_nothing(BestGemm<Input> best, GemmShape split_shape) {
  SplitProblem<Input> probe(split_shape, 0.0f, 5);
  poison_device(probe.c.data(), probe.c.size() * sizeof(float));
  best(probe.args(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = probe.c.to_host();
  const std::vector<float> poison = poisoned_host(out.size());
  if (std::memcmp(out.data(), poison.data(), out.size() * sizeof(float)) == 0)
    return "best's kernel writes nothing yet (not implemented)";
  return "";
}

/// C after one `best` on `stream`.
template <class Input>
std::vector<float> run_on_stream(BestGemm<Input> best, SplitProblem<Input>& problem,
                                 cudaStream_t stream) {
  problem.reset_c();
  best(problem.args(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return problem.c.to_host();
}

/// Each shape's C from `best` on a stream (in place) equals, bit for bit, its C from `best`
/// captured into a graph and replayed (the two-kernel sum).
template <class Input>
void expect_capture_gives_the_same_bits(BestGemm<Input> best, std::span<const GemmShape> shapes) {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const GemmShape& shape : shapes) {
    SplitProblem<Input> problem(shape, shape.m % 2 == 0 ? 0.5f : 0.0f, 11);
    const std::vector<float> in_place = run_on_stream(best, problem, stream);
    problem.reset_c();
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    best(problem.args(), stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> two_kernels = problem.c.to_host();
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    EXPECT_EQ(std::memcmp(in_place.data(), two_kernels.data(), in_place.size() * sizeof(float)), 0)
        << shape.label() << ": the in-place sum differs from the summing kernel's";
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

/// `streams` GEMMs (the shapes in turn, beta 0), each on a stream of its own, enqueued three times
/// over with no wait between, give each its C from a run alone.
template <class Input>
void expect_streams_give_the_same_bits(BestGemm<Input> best, std::span<const GemmShape> shapes,
                                       int streams) {
  std::vector<cudaStream_t> on(static_cast<std::size_t>(streams));
  std::vector<std::unique_ptr<SplitProblem<Input>>> problems;
  std::vector<std::vector<float>> alone;
  for (int i = 0; i < streams; ++i) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&on[i], cudaStreamNonBlocking));
    problems.push_back(
        std::make_unique<SplitProblem<Input>>(shapes[i % shapes.size()], 0.0f, 100 + i));
    alone.push_back(run_on_stream(best, *problems.back(), on[i]));
  }
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < streams; ++i) best(problems[i]->args(), on[i]);
  for (int i = 0; i < streams; ++i) {
    CUDA_CHECK(cudaStreamSynchronize(on[i]));
    const std::vector<float> again = problems[i]->c.to_host();
    EXPECT_EQ(std::memcmp(alone[i].data(), again.data(), again.size() * sizeof(float)), 0)
        << "GEMM " << i << " of " << streams << " streams differs from its run alone";
    CUDA_CHECK(cudaStreamDestroy(on[i]));
  }
}

}  // namespace cudalabs::testing
