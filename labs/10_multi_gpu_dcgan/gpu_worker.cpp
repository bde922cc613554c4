#include "labs/10_multi_gpu_dcgan/gpu_worker.h"

#include "common/cuda_check.h"
#include "common/device_info.h"

#include <stdexcept>
#include <string>

namespace lab10 {
namespace {

// The generator's variant unless the backend names one: lab 09's sub-pixel kernels (its optional
// challenge) on the reference solution; on the student's own lab 09 (EARLIER_LABS=student), its
// core's `fused`, which every student who finished lab 09's core has.
#if CUDALABS_EARLIER_LABS_OWN
constexpr const char* kDefaultVariant = "fused";
#else
constexpr const char* kDefaultVariant = "subpixel";
#endif

}  // namespace

GpuWorker::GpuWorker(int device, const cudalabs::dcgan::Weights& weights, int batch,
                     int copy_threads, const lab09::PrecisionBackend& backend)
    : device_(device),
      variant_(backend.variant ? backend.variant : &lab09::find_variant(kDefaultVariant)) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices) {
    throw std::invalid_argument("GPU " + std::to_string(device) +
                                " does not exist (this machine has " + std::to_string(devices) +
                                ")");
  }
  if (batch < 1)
    throw std::invalid_argument("--batch = " + std::to_string(batch) + " must be >= 1");
  make_current();
  // The generator and the pipeline's three slots of latents and images, on this device.
  cudalabs::require_device_memory(
      lab09::Generator::device_bytes(batch) + 3 * static_cast<std::size_t>(batch) *
                                                  (cudalabs::dcgan::kImageFloats + 100) *
                                                  sizeof(float),
      "GPU " + std::to_string(device) + " with --batch " + std::to_string(batch));
  generator_ = std::make_unique<lab09::Generator>(weights, batch);
  if (backend.make) generator_->use_precision_layers(backend.make(weights, batch));
  pipeline_ = std::make_unique<lab09::Pipeline>(*generator_);
  pipeline_->set_copy_threads(copy_threads);
  methods_ = generator_->methods_for(*variant_, batch, nullptr);
}

// The pipeline's streams and events, then the generator's buffers, are released on their device.
GpuWorker::~GpuWorker() {
  if (cudaSetDevice(device_) == cudaSuccess) {
    pipeline_.reset();
    generator_.reset();
  }
}

// Out of line, as every member a student's code may call: the grader's runner gives the workers a
// definition of its own (they call back to the referee, which runs the real ones).
int GpuWorker::batch() const {
  return generator_->max_batch();
}

void GpuWorker::set_timeline(cudalabs::Timeline* timeline, int process, const std::string& label) {
  pipeline_->set_timeline(timeline, process, label);
}

void GpuWorker::poison() {
  make_current();
  generator_->poison_activations();
  pipeline_->poison_device_images();
}

void GpuWorker::make_current() const {
  CUDA_CHECK(cudaSetDevice(device_));
}

double GpuWorker::generate(std::span<const float> latents, int count, std::span<float> images,
                           const lab09::Pipeline::DeliveredBatch& delivered) {
  if (count == 0) return 0.0;
  make_current();
  last_start_ = std::chrono::steady_clock::now();
  const double seconds =
      pipeline_->generate(*variant_, methods_, latents, count, images, delivered);
  last_end_ = std::chrono::steady_clock::now();
  return seconds;
}

}  // namespace lab10
