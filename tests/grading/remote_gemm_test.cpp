// The GEMM labs' calls (grader/labs/gemm_remote.h: labs 01-07 and 11; lab07_remote.h: lab 07's
// plan): every field crosses the wire, and each is, byte for byte, the Call the hand-written
// remote_gemm and GEMM workload built (built here from their old code).
#include "grader/labs/gemm_remote.h"
#include "grader/labs/lab07_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

namespace {

using grader::Call;
using grader::remote::to_call;
using remote_wire::expect_same_wire;
namespace gemm_remote = grader::gemm_remote;
using gemm_remote::GemmOperands;

TEST(RemoteGemm, EveryFieldCrossesTheWire) {
  remote_wire::expect_round_trip<gemm_remote::GemmVariant<gemm_remote::kVariants>>(71);
  remote_wire::expect_round_trip<gemm_remote::GemmVariant<gemm_remote::kFp16Variants>>(72);
  remote_wire::expect_round_trip<gemm_remote::GemmBest>(73);
  remote_wire::expect_round_trip<grader::lab07_remote::Plan>(74);
}

TEST(RemoteGemm, NameEachListsCall) {
  EXPECT_STREQ(gemm_remote::GemmVariant<gemm_remote::kVariants>::kFunction, "gemm.variants");
  EXPECT_STREQ(gemm_remote::GemmVariant<gemm_remote::kFp16Variants>::kFunction,
               "gemm.fp16_variants");
}

// A GEMM with every argument its own value: leading dimensions past the widths, alpha and beta
// that are not 1 and 0, C's buffer the null one.
const GemmOperands kOperands{.m = 129,
                             .n = 67,
                             .k = 33,
                             .lda = 40,
                             .ldb = 70,
                             .ldc = 68,
                             .alpha = static_cast<double>(0.3f),
                             .beta = static_cast<double>(-1.5f),
                             .a = {4},
                             .b = {grader::kDummyBuffer},
                             .c = {grader::kNullBuffer}};

// remote_gemm.cpp: m, n, k, lda, ldb, ldc (then lab 07's plan); alpha, beta; A, B, C.
TEST(RemoteGemm, PackTheCallsRemoteGemmSent) {
  const std::vector<std::int64_t> ints = {129, 67, 33, 40, 70, 68};
  const std::vector<double> reals = {0.3f, -1.5f};
  const std::vector<std::int64_t> buffers = {4, -2, -1};
  expect_same_wire(to_call(gemm_remote::GemmVariant<gemm_remote::kVariants>{.variant = "rt_2d",
                                                                            .gemm = kOperands}),
                   Call{"gemm.variants", "rt_2d", ints, reals, buffers, {}});
  expect_same_wire(to_call(gemm_remote::GemmVariant<gemm_remote::kFp16Variants>{
                       .variant = "wgmma_fp16", .gemm = kOperands}),
                   Call{"gemm.fp16_variants", "wgmma_fp16", ints, reals, buffers, {}});
  expect_same_wire(to_call(gemm_remote::GemmBest{.gemm = kOperands}),
                   Call{"gemm.best", "", ints, reals, buffers, {}});
  std::vector<std::int64_t> plan_ints = ints;
  plan_ints.insert(plan_ints.end(), {5, 3, 16, 0});
  expect_same_wire(
      to_call(grader::lab07_remote::Plan{
          .gemm = kOperands, .tile = 5, .splits = 3, .slice_k = 16, .stream_blocks = 0}),
      Call{"gemm.plan", "", plan_ints, reals, buffers, {}});
}

// gemm_workload.cpp: tight leading dimensions, alpha 1, beta 0.
TEST(RemoteGemm, PackTheCallsTheWorkloadSent) {
  const int m = 512, n = 384, k = 256;
  expect_same_wire(
      to_call(gemm_remote::GemmVariant<gemm_remote::kVariants>{.variant = "vectorized",
                                                               .gemm = {.m = m,
                                                                        .n = n,
                                                                        .k = k,
                                                                        .lda = k,
                                                                        .ldb = n,
                                                                        .ldc = n,
                                                                        .alpha = 1.0,
                                                                        .beta = 0.0,
                                                                        .a = {11},
                                                                        .b = {12},
                                                                        .c = {13}}}),
      Call{"gemm.variants", "vectorized", {m, n, k, k, n, n}, {1.0, 0.0}, {11, 12, 13}, {}});
}

TEST(RemoteGemm, RefuseABestThatNamesAVariant) {
  Call call = to_call(gemm_remote::GemmBest{.gemm = kOperands});
  call.variant = "rt_2d";
  EXPECT_EQ(remote_wire::refusal([&] { grader::remote::from_call<gemm_remote::GemmBest>(call); }),
            "malformed call gemm.best rt_2d: gemm.best takes no variant");
}

}  // namespace
