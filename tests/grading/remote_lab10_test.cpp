// Lab 10's calls (grader/labs/lab10_remote.h): every field crosses the wire (the workers' list and
// the latents of any length), and each is, byte for byte, the Call the hand-written proxy built
// (built here from its old code).
#include "grader/labs/lab10_remote.h"
#include "tests/grading/remote_wire.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using grader::Call;
using grader::remote::to_call;
using remote_wire::expect_same_wire;
namespace lab10_remote = grader::lab10_remote;

TEST(RemoteLab10, EveryFieldCrossesTheWire) {
  remote_wire::expect_round_trip<lab10_remote::Share>(101);
  remote_wire::expect_round_trip<lab10_remote::Generate>(102);
}

TEST(RemoteLab10, PackTheCallsTheProxySent) {
  expect_same_wire(to_call(lab10_remote::Share{.num = 1000, .parts = 3, .part = 2}),
                   Call{"lab10.share", "", {1000, 3, 2}, {}, {}, {}});

  // Two workers (device, batch each) and three latent floats, as generate_on_gpus sent them.
  const float latents[] = {0.25f, -1.5f, 3.0f};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(latents);
  Call sent{"lab10.generate", "", {7, 2}, {}, {}, {}};
  for (const std::int64_t value : {0, 32, 1, 16}) sent.ints.push_back(value);
  sent.blobs.emplace_back(bytes, bytes + sizeof latents);
  expect_same_wire(to_call(lab10_remote::Generate{.num = 7,
                                                  .workers = 2,
                                                  .devices_and_batches = {{0, 32, 1, 16}},
                                                  .latents = {{bytes, bytes + sizeof latents}}}),
                   sent);
  // No workers, no latents: the lists are empty, not missing.
  expect_same_wire(to_call(lab10_remote::Generate{
                       .num = 0, .workers = 0, .devices_and_batches = {}, .latents = {}}),
                   Call{"lab10.generate", "", {0, 0}, {}, {}, {{}}});
}

TEST(RemoteLab10, RefuseAGenerationWithoutItsLatents) {
  Call call = to_call(lab10_remote::Generate{
      .num = 1, .workers = 1, .devices_and_batches = {{0, 1}}, .latents = {{1, 2, 3, 4}}});
  EXPECT_EQ(grader::remote::from_call<lab10_remote::Generate>(call).devices_and_batches.values,
            (std::vector<std::int64_t>{0, 1}));
  call.blobs.clear();
  EXPECT_EQ(
      remote_wire::refusal([&] { grader::remote::from_call<lab10_remote::Generate>(call); }),
      "malformed call lab10.generate: 4 integers, 0 reals, 0 buffers; lab10.generate takes at "
      "least 2 integers, 0 reals, 0 buffers, 1 host data");
  call = to_call(lab10_remote::Generate{
      .num = 1, .workers = 1, .devices_and_batches = {}, .latents = {{1, 2, 3, 4}}});
  call.ints.pop_back();
  EXPECT_NE(remote_wire::refusal([&] {
              grader::remote::from_call<lab10_remote::Generate>(call);
            }).find("1 integers"),
            std::string::npos);
}

}  // namespace
