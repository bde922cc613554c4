// Lab 09's calls (grader/labs/lab09_remote.h): every field crosses the wire, and each is, byte for
// byte, the Call the hand-written proxy built (built here from its old code).
#include "grader/labs/lab09_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

namespace {

using grader::Call;
using grader::remote::to_call;
using remote_wire::expect_same_wire;
namespace lab09_remote = grader::lab09_remote;

TEST(RemoteLab09, EveryFieldCrossesTheWire) {
  remote_wire::expect_round_trip<lab09_remote::TconvNaive>(91);
  remote_wire::expect_round_trip<lab09_remote::TconvBranchFree>(92);
  remote_wire::expect_round_trip<lab09_remote::TconvSubpixel>(93);
  remote_wire::expect_round_trip<lab09_remote::Lower>(94);
  remote_wire::expect_round_trip<lab09_remote::Generator>(95);
}

// The three convolutions' Call, by each one's name: the shape, the activation, then the buffers
// input, filter, output, scale, shift.
template <class Tconv>
void expect_tconv_as_sent(const std::string& function) {
  expect_same_wire(to_call(Tconv{.batch = 3,
                                 .height = 7,
                                 .width = 5,
                                 .in_channels = 64,
                                 .out_channels = 3,
                                 .activation = 2,
                                 .input = {1},
                                 .filter = {2},
                                 .output = {3},
                                 .scale = {grader::kNullBuffer},
                                 .shift = {grader::kDummyBuffer}}),
                   Call{function, "", {3, 7, 5, 64, 3, 2}, {}, {1, 2, 3, -1, -2}, {}});
}

TEST(RemoteLab09, PackTheCallsTheProxySent) {
  expect_tconv_as_sent<lab09_remote::TconvNaive>("tconv.naive");
  expect_tconv_as_sent<lab09_remote::TconvBranchFree>("tconv.branch_free");
  expect_tconv_as_sent<lab09_remote::TconvSubpixel>("tconv.subpixel");
  expect_same_wire(to_call(lab09_remote::Lower{.batch = 2,
                                               .height = 4,
                                               .width = 4,
                                               .in_channels = 512,
                                               .out_channels = 256,
                                               .input = {5},
                                               .lowered = {6}}),
                   Call{"tconv.lower", "", {2, 4, 4, 512, 256}, {}, {5, 6}, {}});
  expect_same_wire(to_call(lab09_remote::Generator{.variant = "fused_subpixel",
                                                   .batch = 64,
                                                   .weights_seed = 7,
                                                   .latents = {8},
                                                   .images = {9}}),
                   Call{"generator.run", "fused_subpixel", {64, 7}, {}, {8, 9}, {}});
}

TEST(RemoteLab09, RefuseOneConvolutionForAnother) {
  const Call naive = to_call(lab09_remote::TconvNaive{});
  EXPECT_EQ(
      remote_wire::refusal([&] { grader::remote::from_call<lab09_remote::TconvSubpixel>(naive); }),
      "malformed call tconv.naive: not a call of tconv.subpixel");
}

}  // namespace
