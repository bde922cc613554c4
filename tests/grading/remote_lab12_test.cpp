// Lab 12's calls (grader/labs/lab12_remote.h): every field crosses the wire, and each is, byte for
// byte, the Call the hand-written proxy and workloads built (built here from their old code).
#include "grader/labs/lab12_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

namespace {

using grader::Call;
using grader::remote::to_call;
using remote_wire::expect_same_wire;
namespace lab12_remote = grader::lab12_remote;

TEST(RemoteLab12, EveryFieldCrossesTheWire) {
  remote_wire::expect_round_trip<lab12_remote::Sum>(121);
  remote_wire::expect_round_trip<lab12_remote::Scan>(122);
  remote_wire::expect_round_trip<lab12_remote::Histogram>(123);
  remote_wire::expect_round_trip<lab12_remote::SumWorkspace>(124);
  remote_wire::expect_round_trip<lab12_remote::ScanWorkspace>(125);
}

// lab12_proxy.cpp: the ints (count, workspace bytes, present, poisoned) then the operands'
// offsets; the operands' buffers (one shared by both where they overlap).
TEST(RemoteLab12, PackTheCallsTheProxySent) {
  expect_same_wire(to_call(lab12_remote::Sum{.variant = "sum_one_pass",
                                             .count = 1000003,
                                             .workspace_bytes = 4096,
                                             .workspace_present = 1,
                                             .workspace_poisoned = 1,
                                             .input = {7, 12},
                                             .sum = {8, 0}}),
                   Call{"lab12.sum", "sum_one_pass", {1000003, 4096, 1, 1, 12, 0}, {}, {7, 8}, {}});
  expect_same_wire(to_call(lab12_remote::Scan{.variant = "scan_lookback",
                                              .count = 77,
                                              .workspace_bytes = 0,
                                              .workspace_present = 0,
                                              .workspace_poisoned = 1,
                                              .input = {3, 0},
                                              .output = {3, 40}}),
                   Call{"lab12.scan", "scan_lookback", {77, 0, 0, 1, 0, 40}, {}, {3, 3}, {}});
  expect_same_wire(
      to_call(lab12_remote::Histogram{.variant = "hist_warp_aggregated",
                                      .count = 0x100000000,
                                      .input = {grader::kDummyBuffer, 0},
                                      .bins = {grader::kNullBuffer, 0}}),
      Call{"lab12.histogram", "hist_warp_aggregated", {0x100000000, 0, 0}, {}, {-2, -1}, {}});
  expect_same_wire(to_call(lab12_remote::SumWorkspace{.variant = "sum_two_pass", .count = 513}),
                   Call{"lab12.sum_workspace", "sum_two_pass", {513}, {}, {}, {}});
  expect_same_wire(to_call(lab12_remote::ScanWorkspace{.variant = "scan_block", .count = 1}),
                   Call{"lab12.scan_workspace", "scan_block", {1}, {}, {}, {}});
}

// lab12_workloads.cpp: a window of the pool (its byte offset), the workspace not poisoned.
TEST(RemoteLab12, PackTheCallsTheWorkloadsSent) {
  const std::int64_t count = 1 << 26, offset = 123457, workspace = 1 << 20;
  expect_same_wire(to_call(lab12_remote::Sum{.variant = "sum_one_pass",
                                             .count = count,
                                             .workspace_bytes = workspace,
                                             .workspace_present = workspace > 0,
                                             .workspace_poisoned = 0,
                                             .input = {5, offset * 4},
                                             .sum = {9, 0}}),
                   Call{"lab12.sum",
                        "sum_one_pass",
                        {count, workspace, workspace > 0, 0, offset * 4, 0},
                        {},
                        {5, 9},
                        {}});
  expect_same_wire(
      to_call(lab12_remote::Histogram{
          .variant = "hist_shared", .count = count, .input = {5, offset}, .bins = {11, 0}}),
      Call{"lab12.histogram", "hist_shared", {count, offset, 0}, {}, {5, 11}, {}});
}

TEST(RemoteLab12, RefuseANegativeOffset) {
  Call call = to_call(lab12_remote::Histogram{
      .variant = "hist_shared", .count = 10, .input = {5, 0}, .bins = {6, 0}});
  call.ints[2] = -4;
  EXPECT_EQ(remote_wire::refusal([&] { grader::remote::from_call<lab12_remote::Histogram>(call); }),
            "malformed call lab12.histogram hist_shared: a negative offset");
}

}  // namespace
