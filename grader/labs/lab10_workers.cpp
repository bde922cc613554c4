// Lab 10's workers as the runner gives them to the student's generate_on_gpus: each stands for one
// of the referee's real workers, and its generate() asks the referee to run that worker. So the
// referee sees, with its own clock, whether the student's threads ran the workers at the same time,
// and the images come from the suite's generator; the student's code decides only who does what.
//
// The constructor's arguments mean what the runner gives it: the real worker's device, its batch
// (in place of the weights' batch) and its index among the workers (in place of copy_threads).
#include "grader/labs/lab10_remote.h"
#include "grader/runner/runner.h"
#include "labs/10_multi_gpu_dcgan/gpu_worker.h"

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace grader::runner {
/// The context of the call the workers serve (set by the lab 10 handler while it runs).
Context* lab10_context = nullptr;
}  // namespace grader::runner

namespace lab10 {
namespace {
// The stand-in's own facts, kept beside the object (its members are the real worker's layout).
struct StandIn {
  int batch = 0;
  int index = 0;
};
std::map<const GpuWorker*, StandIn>& stand_ins() {
  static std::map<const GpuWorker*, StandIn> facts;
  return facts;
}
std::mutex stand_in_mutex;
}  // namespace

GpuWorker::GpuWorker(int device, const cudalabs::dcgan::Weights&, int batch, int index,
                     const lab09::PrecisionBackend&)
    : device_(device) {
  std::lock_guard<std::mutex> lock(stand_in_mutex);
  stand_ins()[this] = {batch, index};
}

GpuWorker::~GpuWorker() {
  std::lock_guard<std::mutex> lock(stand_in_mutex);
  stand_ins().erase(this);
}

int GpuWorker::batch() const {
  std::lock_guard<std::mutex> lock(stand_in_mutex);
  return stand_ins().at(this).batch;
}

void GpuWorker::set_timeline(cudalabs::Timeline*, int, const std::string&) {}
void GpuWorker::poison() {}
void GpuWorker::make_current() const {}

double GpuWorker::generate(std::span<const float> latents, int count, std::span<float> images,
                           const lab09::Pipeline::DeliveredBatch& delivered) {
  if (count == 0) return 0.0;
  if (count < 0 || latents.size() < static_cast<std::size_t>(count) * cudalabs::dcgan::kLatent ||
      images.size() < static_cast<std::size_t>(count) * cudalabs::dcgan::kImageFloats)
    throw std::invalid_argument("GpuWorker::generate: count = " + std::to_string(count) +
                                " does not fit its spans");
  int index;
  {
    std::lock_guard<std::mutex> lock(stand_in_mutex);
    index = stand_ins().at(this).index;
  }
  grader::Writer out;
  out.i64(index);
  out.i64(count);
  out.bytes(latents.data(),
            static_cast<std::size_t>(count) * cudalabs::dcgan::kLatent * sizeof(float));
  const std::vector<std::uint8_t> reply =
      grader::runner::lab10_context->callback(grader::lab10_remote::kWorkerGenerate, out.data());
  grader::Reader in(reply);
  const double seconds = in.f64();
  const auto [data, size] = in.bytes();
  if (size != static_cast<std::size_t>(count) * cudalabs::dcgan::kImageFloats * sizeof(float))
    throw std::runtime_error("GpuWorker::generate: the referee's images have the wrong size");
  std::memcpy(images.data(), data, size);
  if (delivered) delivered(0, count);
  return seconds;
}

}  // namespace lab10
