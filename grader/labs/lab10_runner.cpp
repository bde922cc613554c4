// Lab 10's runner: the student's split, and the student's generate_on_gpus over stand-in workers
// (lab10_workers.cpp) whose work the referee does (the calls: lab10_remote.h).
#include "common/dcgan_model.h"
#include "grader/labs/lab10_remote.h"
#include "grader/runner/runner.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <climits>
#include <cstring>
#include <limits>
#include <memory>

namespace grader::runner {
extern Context* lab10_context;
}

namespace {

using grader::lab10_remote::Generate;
using grader::lab10_remote::Share;
using grader::runner::Context;

void run_share(const Share& call, Context& context) {
  const lab10::Share share = lab10::gpu_share(call.num, call.parts, call.part);
  grader::Writer out;
  out.i64(share.first);
  out.i64(share.count);
  context.set_result(out.data());
}

// Worker i's device (what = 0) or batch (what = 1), checked to fit an int.
int worker_int(const Generate& call, int worker, int what) {
  const std::int64_t value = call.devices_and_batches.values[2 * worker + what];
  if (value < INT_MIN || value > INT_MAX)
    throw grader::ChannelError(std::string(Generate::kFunction) + ": worker " +
                               std::to_string(worker) + "'s " + (what == 0 ? "device" : "batch") +
                               " (" + std::to_string(value) + ") does not fit an int");
  return static_cast<int>(value);
}

// Result: the seconds the student's code reported and the images (NaN where it wrote nothing).
void run_generate(const Generate& call, Context& context) {
  const int num = call.num;
  const int count = call.workers;
  if (num < 0 || count < 0 || count > 64 ||
      call.devices_and_batches.values.size() != 2 * static_cast<std::size_t>(count))
    throw grader::ChannelError(std::string(Generate::kFunction) + ": bad sizes");
  std::vector<std::unique_ptr<lab10::GpuWorker>> owned;
  std::vector<lab10::GpuWorker*> workers;
  const cudalabs::dcgan::Weights none;
  for (int i = 0; i < count; ++i) {
    owned.push_back(std::make_unique<lab10::GpuWorker>(worker_int(call, i, 0), none,
                                                       worker_int(call, i, 1), i));
    workers.push_back(owned.back().get());
  }
  const std::vector<std::uint8_t>& bytes = call.latents.bytes;
  std::vector<float> latents(bytes.size() / sizeof(float));
  std::memcpy(latents.data(), bytes.data(), latents.size() * sizeof(float));
  std::vector<float> images(static_cast<std::size_t>(num) * cudalabs::dcgan::kImageFloats,
                            std::numeric_limits<float>::quiet_NaN());
  grader::runner::lab10_context = &context;
  const double seconds = lab10::generate_on_gpus(workers, latents, num, images);
  grader::runner::lab10_context = nullptr;
  grader::Writer out;
  out.f64(seconds);
  out.bytes(images.data(), images.size() * sizeof(float));
  context.set_result(out.data());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {remote_handler<Share, &run_share>(),
                                     remote_handler<Generate, &run_generate>()};
  return handlers;
}
