// Lab 10 grading tests.
// - gpu_share: for many (num, parts), the parts are in order, tile [0, num) and differ by at most
// one
//   image; bad arguments are refused with the argument named. (Host code: runs without a GPU.)
// - generate_on_gpus: three workers on GPU 0 (so it runs on any machine with one GPU) and a worker
// on
//   every GPU present (at least two, else skipped), with num not divisible by the worker count: the
//   output is bit for bit one worker's output, and sampled images match the CPU reference.
// - A worker on a GPU that does not exist is refused, naming it.
// A student's TODO (every share empty, no image written) is "not implemented yet" (skipped) in the
// student build, a failure in the solution build.
#include "common/cuda_check.h"
#include "common/dcgan_check.h"
#include "common/dcgan_model.h"
#include "common/random_fill.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "tests/support/expect_rejected.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;
using dcgan::kLatent;

const bool kStudentBuild = std::string(CUDALABS_BUILD_NAME) == "student";

bool share_not_implemented() {
  const lab10::Share share = lab10::gpu_share(10, 3, 0);
  return share.first == 0 && share.count == 0;
}

TEST(Split, SharesAreOrderedTilingAndBalanced) {
  if (share_not_implemented()) {
    if (kStudentBuild) GTEST_SKIP() << "gpu_share: not implemented yet";
    FAIL() << "the solution's gpu_share returns empty shares";
  }
  for (int num : {0, 1, 2, 3, 7, 10, 64, 1000, 5248, 65536}) {
    for (int parts : {1, 2, 3, 4, 7, 8, 16}) {
      int next = 0, smallest = num, largest = 0;
      for (int p = 0; p < parts; ++p) {
        const lab10::Share share = lab10::gpu_share(num, parts, p);
        ASSERT_EQ(share.first, next)
            << "num " << num << ", parts " << parts << ": part " << p << " is out of order";
        ASSERT_GE(share.count, 0);
        next += share.count;
        smallest = std::min(smallest, share.count);
        largest = std::max(largest, share.count);
      }
      EXPECT_EQ(next, num) << "num " << num << ", parts " << parts
                           << ": the parts do not cover every image";
      EXPECT_LE(largest - smallest, 1) << "num " << num << ", parts " << parts << ": unbalanced";
    }
  }
  // The extra images go to the first parts: 10 over 4 is 3, 3, 2, 2.
  EXPECT_EQ(lab10::gpu_share(10, 4, 1).count, 3);
  EXPECT_EQ(lab10::gpu_share(10, 4, 2).first, 6);
  EXPECT_EQ(lab10::gpu_share(10, 4, 3).count, 2);
}

TEST(Split, RejectsBadArguments) {
  if (share_not_implemented()) {
    if (kStudentBuild) GTEST_SKIP() << "gpu_share: not implemented yet";
    FAIL() << "the solution's gpu_share returns empty shares";
  }
  using cudalabs::testing::expect_rejected;
  expect_rejected(
      "gpu_share", [] { lab10::gpu_share(-1, 2, 0); }, "num = -1");
  expect_rejected(
      "gpu_share", [] { lab10::gpu_share(10, 0, 0); }, "parts = 0");
  expect_rejected(
      "gpu_share", [] { lab10::gpu_share(10, 2, 2); }, "part = 2");
  expect_rejected(
      "gpu_share", [] { lab10::gpu_share(10, 2, -1); }, "part = -1");
}

// num latent vectors in [-1, 1), fresh for every run (the seed is printed), named by `use`.
std::vector<float> random_latents(int num, const std::string& use) {
  std::vector<float> latents(static_cast<std::size_t>(num) * kLatent);
  cudalabs::fill_uniform(latents, cudalabs::derive_seed(cudalabs::run_seed(), use), -1.0f, 1.0f);
  return latents;
}

// One worker per entry of `devices` (a device may repeat), kept alive here; `all` is what
// generate_on_gpus takes.
struct Workers {
  Workers(const std::vector<int>& devices, const dcgan::Weights& weights, int batch) {
    for (int d : devices) {
      owned.push_back(std::make_unique<lab10::GpuWorker>(d, weights, batch, 2));
      all.push_back(owned.back().get());
    }
  }
  std::vector<std::unique_ptr<lab10::GpuWorker>> owned;
  std::vector<lab10::GpuWorker*> all;
};

// Workers on `devices`, num images: the threaded output against one worker's, bit for bit, and
// sampled images against the CPU reference.
void expect_same_as_one_gpu(const std::vector<int>& devices, int num, int batch) {
  const dcgan::Weights weights = dcgan::default_weights(7);
  const std::vector<float> latents = random_latents(num, "lab10 latents");
  Workers made(devices, weights, batch);
  const std::vector<lab10::GpuWorker*>& workers = made.all;
  // Poisoned first: a layer whose kernel writes nothing (lab 09's skeleton, EARLIER_LABS=student)
  // then leaves NaN in the images rather than whatever the memory held.
  for (lab10::GpuWorker* worker : workers) worker->poison();
  // One worker generating the shares lab.h's split gives, in turn: the batches the workers run, so
  // bit for bit is a fair demand (all images in one call would batch them otherwise, and lab 07's
  // GEMM, planned per shape, may then add in another order).
  std::vector<float> single(static_cast<std::size_t>(num) * kImageFloats, std::nanf(""));
  const int parts = static_cast<int>(devices.size());
  for (int p = 0, first = 0; p < parts; ++p) {
    const int count = num / parts + (p < num % parts ? 1 : 0);
    workers[0]->generate(
        std::span<const float>(latents).subspan(static_cast<std::size_t>(first) * kLatent,
                                                static_cast<std::size_t>(count) * kLatent),
        count,
        std::span<float>(single).subspan(static_cast<std::size_t>(first) * kImageFloats,
                                         static_cast<std::size_t>(count) * kImageFloats));
    first += count;
  }
  if (std::isnan(single[0])) {
    if (kStudentBuild) GTEST_SKIP() << "lab 09's kernels: not implemented yet";
    FAIL() << "the solution's generator writes nothing";
  }
  std::vector<float> images(single.size(), std::nanf(""));
  const double seconds = lab10::generate_on_gpus(workers, latents, num, images);
  std::size_t unwritten = 0;
  for (float value : images) unwritten += std::isnan(value);
  if (unwritten == images.size()) {
    if (kStudentBuild) GTEST_SKIP() << "generate_on_gpus: not implemented yet";
    FAIL() << "the solution's generate_on_gpus writes nothing";
  }
  EXPECT_GT(seconds, 0.0);
  EXPECT_EQ(unwritten, 0u) << "values never written";
  std::string message;
  EXPECT_TRUE(dcgan::identical_images(images, single, message))
      << devices.size() << " workers, " << num
      << " images against one worker's output of the same shares: " << message;
  const std::vector<int> picks = dcgan::spread_picks(num, 3);
  const dcgan::ImageCheck check =
      dcgan::check_images(images, picks, dcgan::reference_images(weights, latents, picks));
  EXPECT_TRUE(check.passed) << check.message;
}

TEST(Threads, ThreeWorkersOnOneGpuGiveOneWorkersImages) {
  CUDALABS_REQUIRE_GPU();
  expect_same_as_one_gpu({0, 0, 0}, 10, 2);  // shares 4, 3, 3: batches of 2, short last batches
}

TEST(Threads, EveryGpuGivesOneGpusImages) {
  CUDALABS_REQUIRE_GPU();
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (present < 2) GTEST_SKIP() << "needs 2 GPUs, found " << present;
  std::vector<int> devices(present);
  for (int d = 0; d < present; ++d) devices[d] = d;
  expect_same_as_one_gpu(devices, 2 * present + 1, 3);  // not divisible by the GPU count
}

// The workers of one call must run at the same time, one host thread each: some instant lies inside
// every worker's run (a loop over the GPUs would run them one after another).
TEST(Threads, WorkersRunAtTheSameTime) {
  CUDALABS_REQUIRE_GPU();
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  const std::vector<int> devices = present > 1 ? std::vector<int>{0, 1} : std::vector<int>{0, 0, 0};
  const int num =
      1024 * static_cast<int>(devices.size());  // each worker's share runs for milliseconds
  const std::vector<float> latents = random_latents(num, "lab10 overlap");
  const dcgan::Weights weights = dcgan::default_weights(11);
  Workers made(devices, weights, 256);
  const std::vector<lab10::GpuWorker*>& workers = made.all;
  std::vector<float> images(static_cast<std::size_t>(num) * kImageFloats, std::nanf(""));
  lab10::generate_on_gpus(workers, latents, num,
                          images);  // warm-up: first launches load the modules
  std::fill(images.begin(), images.end(), std::nanf(""));
  lab10::generate_on_gpus(workers, latents, num, images);
  if (std::all_of(images.begin(), images.end(), [](float v) { return std::isnan(v); })) {
    if (kStudentBuild) GTEST_SKIP() << "generate_on_gpus: not implemented yet";
    FAIL() << "the solution's generate_on_gpus writes nothing";
  }
  auto latest_start = workers[0]->last_run().first;
  auto earliest_end = workers[0]->last_run().second;
  for (const lab10::GpuWorker* worker : workers) {
    latest_start = std::max(latest_start, worker->last_run().first);
    earliest_end = std::min(earliest_end, worker->last_run().second);
  }
  EXPECT_LT(latest_start, earliest_end)
      << "the workers ran one after another: the last began "
      << std::chrono::duration<double, std::milli>(latest_start - earliest_end).count()
      << " ms after the first had finished (one host thread per worker runs them together)";
}

TEST(Threads, MoreGpusThanImages) {
  CUDALABS_REQUIRE_GPU();
  expect_same_as_one_gpu({0, 0, 0, 0}, 3, 4);  // one worker has nothing to do
}

TEST(Arguments, WorkerOnAMissingGpu) {
  CUDALABS_REQUIRE_GPU();
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  cudalabs::testing::expect_rejected(
      "GpuWorker", [&] { lab10::GpuWorker worker(present, dcgan::default_weights(1), 4, 1); },
      "GPU " + std::to_string(present) + " does not exist");
}

}  // namespace
