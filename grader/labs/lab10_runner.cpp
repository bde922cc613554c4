// Lab 10's runner: the student's split, and the student's generate_on_gpus over stand-in workers
// (lab10_workers.cpp) whose work the referee does.
#include "common/dcgan_model.h"
#include "grader/runner/runner.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <cstring>
#include <limits>
#include <memory>

namespace grader::runner {
extern Context* lab10_context;
}

namespace {

using grader::Call;
using grader::runner::Context;
using grader::runner::int_arg;

void run_share(const Call& call, Context& context) {
  const lab10::Share share = lab10::gpu_share(int_arg(call, 0), int_arg(call, 1), int_arg(call, 2));
  grader::Writer out;
  out.i64(share.first);
  out.i64(share.count);
  context.set_result(out.data());
}

// ints: num, workers, then each worker's device and batch; blob 0: the latents. Result: the
// images (NaN where the student's code wrote nothing) and the seconds it reported.
void run_generate(const Call& call, Context& context) {
  const int num = int_arg(call, 0);
  const int count = int_arg(call, 1);
  if (num < 0 || count < 0 || count > 64) throw grader::ChannelError("lab10.generate: bad sizes");
  std::vector<std::unique_ptr<lab10::GpuWorker>> owned;
  std::vector<lab10::GpuWorker*> workers;
  const cudalabs::dcgan::Weights none;
  for (int i = 0; i < count; ++i) {
    owned.push_back(std::make_unique<lab10::GpuWorker>(int_arg(call, 2 + 2 * i), none,
                                                       int_arg(call, 3 + 2 * i), i));
    workers.push_back(owned.back().get());
  }
  const std::vector<std::uint8_t>& bytes = context.blob(call, 0);
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
  static const Handler handlers[] = {{"lab10.share", &run_share},
                                     {"lab10.generate", &run_generate}};
  return handlers;
}
