// Lab 13's calls (grader/labs/lab13_remote.h): every field crosses the wire, and each is, byte for
// byte, the Call the hand-written proxy and workloads built (built here from their old code).
#include "grader/labs/lab13_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

namespace {

using grader::Call;
using grader::remote::to_call;
using remote_wire::expect_same_wire;
namespace lab13_remote = grader::lab13_remote;

TEST(RemoteLab13, EveryFieldCrossesTheWire) {
  remote_wire::expect_round_trip<lab13_remote::Softmax>(131);
  remote_wire::expect_round_trip<lab13_remote::Attention>(132);
  remote_wire::expect_round_trip<lab13_remote::AttentionWorkspace>(133);
}

// lab13_proxy.cpp: the softmax in place (input and output one buffer); attention's shape, its
// workspace (bytes, present, poisoned), the operands' offsets, the scale.
TEST(RemoteLab13, PackTheCallsTheProxySent) {
  expect_same_wire(to_call(lab13_remote::Softmax{.variant = "softmax_online",
                                                 .rows = 33,
                                                 .columns = 1025,
                                                 .input = {4, 0},
                                                 .output = {4, 0}}),
                   Call{"lab13.softmax", "softmax_online", {33, 1025, 0, 0}, {}, {4, 4}, {}});
  const float scale = 0.125f;
  expect_same_wire(to_call(lab13_remote::Attention{.variant = "flash_wgmma",
                                                   .batch = 2,
                                                   .heads = 3,
                                                   .sequence = 513,
                                                   .head_dim = 128,
                                                   .causal = 1,
                                                   .workspace_bytes = 4096,
                                                   .workspace_present = 1,
                                                   .workspace_poisoned = 1,
                                                   .scale = scale,
                                                   .q = {1, 0},
                                                   .k = {2, 0},
                                                   .v = {grader::kDummyBuffer, 0},
                                                   .o = {1, 256}}),
                   Call{"lab13.attention",
                        "flash_wgmma",
                        {2, 3, 513, 128, 1, 4096, 1, 1, 0, 0, 0, 256},
                        {scale},
                        {1, 2, -2, 1},
                        {}});
  expect_same_wire(
      to_call(lab13_remote::AttentionWorkspace{.variant = "attention_naive",
                                               .batch = 1,
                                               .heads = 16,
                                               .sequence = 4096,
                                               .head_dim = 64,
                                               .causal = 0}),
      Call{"lab13.attention_workspace", "attention_naive", {1, 16, 4096, 64, 0}, {}, {}, {}});
}

// lab13_workloads.cpp: windows of the pools (byte offsets), the workspace not poisoned.
TEST(RemoteLab13, PackTheCallsTheWorkloadsSent) {
  const std::int64_t offset = 98765;
  expect_same_wire(
      to_call(lab13_remote::Softmax{.variant = "softmax_warp",
                                    .rows = 4096,
                                    .columns = 2048,
                                    .input = {6, offset * 4},
                                    .output = {8, 0}}),
      Call{"lab13.softmax", "softmax_warp", {4096, 2048, offset * 4, 0}, {}, {6, 8}, {}});
  const std::int64_t q = 8, k = 1600, v = 24;
  const float scale = 0.08838834764831845f;
  expect_same_wire(to_call(lab13_remote::Attention{.variant = "flash_wgmma_ws_lpt",
                                                   .batch = 1,
                                                   .heads = 16,
                                                   .sequence = 4096,
                                                   .head_dim = 128,
                                                   .causal = 0,
                                                   .workspace_bytes = 0,
                                                   .workspace_present = 0,
                                                   .workspace_poisoned = 0,
                                                   .scale = scale,
                                                   .q = {3, q * 2},
                                                   .k = {4, k * 2},
                                                   .v = {5, v * 2},
                                                   .o = {9, 0}}),
                   Call{"lab13.attention",
                        "flash_wgmma_ws_lpt",
                        {1, 16, 4096, 128, 0, 0, 0, 0, q * 2, k * 2, v * 2, 0},
                        {scale},
                        {3, 4, 5, 9},
                        {}});
}

TEST(RemoteLab13, RefuseAShapeThatDoesNotFitAnInt) {
  Call call = to_call(lab13_remote::AttentionWorkspace{
      .variant = "attention_naive", .batch = 1, .heads = 1, .sequence = 1, .head_dim = 64});
  call.ints[2] = std::int64_t{1} << 31;
  EXPECT_EQ(remote_wire::refusal(
                [&] { grader::remote::from_call<lab13_remote::AttentionWorkspace>(call); }),
            "malformed call lab13.attention_workspace attention_naive: integer 2 (2147483648) does "
            "not fit an int");
}

}  // namespace
