// The remote functions' declarations (grader/remote.h, grader/labs/labNN_remote.h): a Call the
// referee packs crosses the channel's encoding and unpacks, on the runner's side, to every field it
// was packed from; it is the Call the hand-written proxies sent (the same wire), and one that does
// not fit its declaration is refused in one line naming the call. Labs 09-13's calls:
// remote_labNN_test.cpp.
#include "grader/labs/lab00_remote.h"
#include "grader/labs/lab08_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

namespace {

using grader::Call;
using grader::remote::from_call;
using grader::remote::to_call;
using remote_wire::expect_round_trip;
using remote_wire::refusal;

TEST(RemoteDeclarations, EveryFieldCrossesTheWire) {
  expect_round_trip<grader::lab00_remote::Copy>(1);
  expect_round_trip<grader::lab00_remote::Fma>(2);
  expect_round_trip<grader::lab08_remote::Conv>(3);
}

// The Calls the hand-written proxies built, position for position: a grade does not change.
TEST(RemoteDeclarations, PackTheCallsTheProxiesSent) {
  const Call copy = to_call(grader::lab00_remote::Copy{.count = 1 << 20, .src = {4}, .dst = {5}});
  EXPECT_EQ(copy.function, "lab00.copy");
  EXPECT_EQ(copy.variant, "");
  EXPECT_EQ(copy.ints, (std::vector<std::int64_t>{1 << 20}));
  EXPECT_TRUE(copy.reals.empty());
  EXPECT_EQ(copy.buffers, (std::vector<std::int64_t>{4, 5}));

  const Call fma =
      to_call(grader::lab00_remote::Fma{.threads = 123456789012, .iterations = 1037, .out = {-1}});
  EXPECT_EQ(fma.function, "lab00.fma");
  EXPECT_EQ(fma.ints, (std::vector<std::int64_t>{123456789012, 1037}));
  EXPECT_EQ(fma.buffers, (std::vector<std::int64_t>{grader::kNullBuffer}));

  const Call conv = to_call(grader::lab08_remote::Conv{.variant = "coarsen4",
                                                       .n = 2,
                                                       .h = 31,
                                                       .w = 45,
                                                       .c = 3,
                                                       .f = 17,
                                                       .r = 5,
                                                       .s = 3,
                                                       .input = {7},
                                                       .filter = {-2},
                                                       .output = {9}});
  EXPECT_EQ(conv.function, "conv.variants");
  EXPECT_EQ(conv.variant, "coarsen4");
  EXPECT_EQ(conv.ints, (std::vector<std::int64_t>{2, 31, 45, 3, 17, 5, 3}));
  EXPECT_TRUE(conv.reals.empty());
  EXPECT_EQ(conv.buffers, (std::vector<std::int64_t>{7, grader::kDummyBuffer, 9}));
  EXPECT_TRUE(conv.blobs.empty());
}

Call a_conv() {
  return to_call(grader::lab08_remote::Conv{.variant = "coarsen2",
                                            .n = 1,
                                            .h = 8,
                                            .w = 8,
                                            .c = 3,
                                            .f = 4,
                                            .r = 3,
                                            .s = 3,
                                            .input = {1},
                                            .filter = {2},
                                            .output = {3}});
}

TEST(RemoteDeclarations, RefuseACallOfTheWrongCount) {
  using grader::lab08_remote::Conv;
  Call call = a_conv();
  call.ints.pop_back();
  EXPECT_EQ(refusal([&] { from_call<Conv>(call); }),
            "malformed call conv.variants coarsen2: 6 integers, 0 reals, 3 buffers; conv.variants "
            "takes 7 integers, 0 reals, 3 buffers");
  call = a_conv();
  call.ints.push_back(0);
  EXPECT_NE(refusal([&] { from_call<Conv>(call); }).find("8 integers"), std::string::npos);
  call = a_conv();
  call.buffers.pop_back();
  EXPECT_NE(refusal([&] { from_call<Conv>(call); }).find("2 buffers"), std::string::npos);
  call = a_conv();
  call.reals.push_back(1.0);
  EXPECT_NE(refusal([&] { from_call<Conv>(call); }).find("1 reals"), std::string::npos);
  call = a_conv();
  call.blobs.push_back({1, 2, 3});
  EXPECT_NE(refusal([&] { from_call<Conv>(call); }).find("1 host data"), std::string::npos);

  Call fma = to_call(grader::lab00_remote::Fma{.threads = 10, .iterations = 2, .out = {1}});
  fma.buffers.clear();
  EXPECT_EQ(refusal([&] { from_call<grader::lab00_remote::Fma>(fma); }),
            "malformed call lab00.fma: 2 integers, 0 reals, 0 buffers; lab00.fma takes 2 integers, "
            "0 reals, 1 buffers");
}

TEST(RemoteDeclarations, RefuseACallOfAnotherName) {
  Call call = a_conv();
  call.function = "conv.variant";
  EXPECT_EQ(refusal([&] { from_call<grader::lab08_remote::Conv>(call); }),
            "malformed call conv.variant coarsen2: not a call of conv.variants");
  // Same counts, another function: still refused by name.
  const Call copy = to_call(grader::lab00_remote::Copy{.count = 3, .src = {1}, .dst = {2}});
  EXPECT_EQ(refusal([&] { from_call<grader::lab00_remote::Fma>(copy); }),
            "malformed call lab00.copy: not a call of lab00.fma");
}

TEST(RemoteDeclarations, RefuseAVariantWhereNoneIsTaken) {
  Call copy = to_call(grader::lab00_remote::Copy{.count = 3, .src = {1}, .dst = {2}});
  copy.variant = "fast";
  EXPECT_EQ(refusal([&] { from_call<grader::lab00_remote::Copy>(copy); }),
            "malformed call lab00.copy fast: lab00.copy takes no variant");
}

TEST(RemoteDeclarations, RefuseAnIntOutOfRange) {
  for (const std::int64_t value : {std::int64_t{INT_MAX} + 1, std::int64_t{INT_MIN} - 1}) {
    Call call = a_conv();
    call.ints[4] = value;
    EXPECT_EQ(refusal([&] { from_call<grader::lab08_remote::Conv>(call); }),
              "malformed call conv.variants coarsen2: integer 4 (" + std::to_string(value) +
                  ") does not fit an int");
  }
  // The int64 members take the whole range.
  const Call fma = to_call(grader::lab00_remote::Fma{
      .threads = std::int64_t{1} << 40, .iterations = INT_MIN, .out = {1}});
  EXPECT_EQ(from_call<grader::lab00_remote::Fma>(fma).threads, std::int64_t{1} << 40);
  EXPECT_EQ(from_call<grader::lab00_remote::Fma>(fma).iterations, INT_MIN);
}

}  // namespace
