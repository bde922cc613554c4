#include "labs/09_dcgan/pipeline.h"

#include "common/cuda_check.h"
#include "common/poison.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab09 {
namespace {

using cudalabs::dcgan::kImageFloats;
constexpr std::size_t kLatent = cudalabs::dcgan::kLatent;

// Host-to-host copy of a batch's images, split over the cores: one thread moves ~10 GB/s, and the
// copy must finish while the GPU computes the next batch. No more threads than pieces: a small
// batch (a few images) is copied by the calling thread alone instead of waking a team that has
// nothing to do, which matters when several workers share the cores (lab 10).
void parallel_copy(float* to, const float* from, std::size_t count, int threads) {
  constexpr std::size_t kPiece = std::size_t{1} << 18;  // 1 MiB of floats per task
  const long long pieces = static_cast<long long>((count + kPiece - 1) / kPiece);
  const int team = static_cast<int>(std::min<long long>(threads, pieces));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (long long p = 0; p < pieces; ++p) {
    const std::size_t start = static_cast<std::size_t>(p) * kPiece;
    std::memcpy(to + start, from + start, std::min(kPiece, count - start) * sizeof(float));
  }
}

}  // namespace

Pipeline::Pipeline(Generator& generator)
    : generator_(generator), copy_threads_(omp_get_max_threads()) {
  const std::size_t batch = static_cast<std::size_t>(generator.max_batch());
  for (int s = 0; s < kSlots; ++s) {
    host_latents_[s] = cudalabs::PinnedBuffer<float>(batch * kLatent);
    host_images_[s] = cudalabs::PinnedBuffer<float>(batch * kImageFloats);
    device_latents_[s] = cudalabs::DeviceBuffer<float>(batch * kLatent);
    device_images_[s] = cudalabs::DeviceBuffer<float>(batch * kImageFloats);
    for (cudaEvent_t* event : {&uploaded_[s], &computed_[s], &downloaded_[s]}) {
      CUDA_CHECK(cudaEventCreateWithFlags(event, cudaEventDisableTiming));
    }
  }
  for (cudaStream_t* stream : {&compute_, &upload_, &download_}) {
    CUDA_CHECK(cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking));
  }
}

Pipeline::~Pipeline() {
  // Destructors must not throw: errors here are ignored (the run has already reported its own).
  for (cudaStream_t stream : {compute_, upload_, download_}) {
    if (stream) cudaStreamDestroy(stream);
  }
  for (int s = 0; s < kSlots; ++s) {
    for (cudaEvent_t event : {uploaded_[s], computed_[s], downloaded_[s]}) {
      if (event) cudaEventDestroy(event);
    }
  }
}

void Pipeline::poison_device_images() {
  for (cudalabs::DeviceBuffer<float>& images : device_images_) {
    cudalabs::poison_device(images.data(), images.bytes());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

void Pipeline::set_timeline(cudalabs::Timeline* timeline, int process, const std::string& label) {
  timeline_ = timeline;
  timeline_process_ = process;
  if (timeline_) timeline_->name_process(process, label);
}

namespace {

// A batch's CUDA events for the timeline: upload, the generator's layer boundaries, download.
struct BatchEvents {
  cudaEvent_t upload_start{}, upload_end{}, download_start{}, download_end{};
  std::array<cudaEvent_t, 6> layers{};
  double stage_start_us = 0.0, stage_end_us = 0.0, copy_start_us = 0.0, copy_end_us = 0.0;

  BatchEvents() {
    for (cudaEvent_t* e : all()) CUDA_CHECK(cudaEventCreate(e));
  }
  ~BatchEvents() {
    for (cudaEvent_t* e : all())
      if (*e) cudaEventDestroy(*e);
  }
  BatchEvents(const BatchEvents&) = delete;
  BatchEvents& operator=(const BatchEvents&) = delete;
  std::vector<cudaEvent_t*> all() {
    std::vector<cudaEvent_t*> events = {&upload_start, &upload_end, &download_start, &download_end};
    for (cudaEvent_t& e : layers) events.push_back(&e);
    return events;
  }
};

constexpr const char* kLayerNames[5] = {"linear", "tconv1", "tconv2", "tconv3", "tconv4"};

}  // namespace

void Pipeline::set_copy_threads(int threads) {
  if (threads < 1)
    throw std::invalid_argument("lab09 pipeline: copy threads = " + std::to_string(threads) +
                                " must be >= 1");
  copy_threads_ = threads;
}

double Pipeline::generate(const DcganVariant& variant, const std::array<TconvMethod, 4>& methods,
                          std::span<const float> latents, int num, std::span<float> images,
                          const DeliveredBatch& delivered) {
  if (num < 1) throw std::invalid_argument("--num = " + std::to_string(num) + " must be >= 1");
  if (latents.size() < static_cast<std::size_t>(num) * kLatent ||
      images.size() < static_cast<std::size_t>(num) * kImageFloats) {
    throw std::invalid_argument("lab09 pipeline: buffers too small for num = " +
                                std::to_string(num));
  }
  const int batch = generator_.max_batch();
  const int batches = (num + batch - 1) / batch;
  auto count_of = [&](int b) { return std::min(batch, num - b * batch); };
  // The timeline's clock for this GPU: an event recorded and waited for now, read on the host.
  std::vector<std::unique_ptr<BatchEvents>> marks;
  cudaEvent_t anchor = nullptr;
  double anchor_us = 0.0;
  if (timeline_) {
    CUDA_CHECK(cudaEventCreate(&anchor));
    CUDA_CHECK(cudaEventRecord(anchor, compute_));
    CUDA_CHECK(cudaEventSynchronize(anchor));
    anchor_us = timeline_->now_us();
    for (int b = 0; b < batches; ++b) marks.push_back(std::make_unique<BatchEvents>());
  }
  auto host_now = [&] { return timeline_ ? timeline_->now_us() : 0.0; };

  // Host side of batch b's images: wait for their download, then copy them out of pinned memory.
  auto deliver = [&](int b) {
    const int s = b % kSlots;
    CUDA_CHECK(cudaEventSynchronize(downloaded_[s]));
    if (timeline_) marks[b]->copy_start_us = host_now();
    parallel_copy(images.data() + static_cast<std::size_t>(b) * batch * kImageFloats,
                  host_images_[s].data(), static_cast<std::size_t>(count_of(b)) * kImageFloats,
                  copy_threads_);
    if (timeline_) marks[b]->copy_end_us = host_now();
    if (delivered) delivered(b * batch, count_of(b));
  };

  const auto start = std::chrono::steady_clock::now();
  for (int b = 0; b < batches; ++b) {
    const int s = b % kSlots, count = count_of(b);
    // Slot s last held batch b - 3: its pinned latents were uploaded and its images delivered
    // (deliver(b - 3) ran at iteration b - 1), so both host buffers are free again.
    if (b >= kSlots) CUDA_CHECK(cudaEventSynchronize(uploaded_[s]));
    BatchEvents* m = timeline_ ? marks[b].get() : nullptr;
    if (m) m->stage_start_us = host_now();
    std::memcpy(host_latents_[s].data(),
                latents.data() + static_cast<std::size_t>(b) * batch * kLatent,
                static_cast<std::size_t>(count) * kLatent * sizeof(float));
    if (m) m->stage_end_us = host_now();
    // The device latents of slot s are free once batch b - 3 has been computed.
    CUDA_CHECK(cudaStreamWaitEvent(upload_, computed_[s], 0));
    if (m) CUDA_CHECK(cudaEventRecord(m->upload_start, upload_));
    CUDA_CHECK(cudaMemcpyAsync(device_latents_[s].data(), host_latents_[s].data(),
                               static_cast<std::size_t>(count) * kLatent * sizeof(float),
                               cudaMemcpyHostToDevice, upload_));
    if (m) CUDA_CHECK(cudaEventRecord(m->upload_end, upload_));
    CUDA_CHECK(cudaEventRecord(uploaded_[s], upload_));
    // Compute needs the latents up, and the slot's device images downloaded (batch b - 3).
    CUDA_CHECK(cudaStreamWaitEvent(compute_, uploaded_[s], 0));
    CUDA_CHECK(cudaStreamWaitEvent(compute_, downloaded_[s], 0));
    generator_.run(variant, methods, device_latents_[s].data(), count, device_images_[s].data(),
                   compute_, nullptr, m ? &m->layers : nullptr);
    CUDA_CHECK(cudaEventRecord(computed_[s], compute_));
    CUDA_CHECK(cudaStreamWaitEvent(download_, computed_[s], 0));
    if (m) CUDA_CHECK(cudaEventRecord(m->download_start, download_));
    CUDA_CHECK(cudaMemcpyAsync(host_images_[s].data(), device_images_[s].data(),
                               static_cast<std::size_t>(count) * kImageFloats * sizeof(float),
                               cudaMemcpyDeviceToHost, download_));
    if (m) CUDA_CHECK(cudaEventRecord(m->download_end, download_));
    CUDA_CHECK(cudaEventRecord(downloaded_[s], download_));
    // While the GPU works on batches b and b - 1, the host delivers batch b - 2.
    if (b >= 2) deliver(b - 2);
  }
  for (int b = std::max(0, batches - 2); b < batches; ++b) deliver(b);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CUDA_CHECK(cudaStreamSynchronize(compute_));
  if (timeline_) {
    CUDA_CHECK(cudaStreamSynchronize(upload_));
    CUDA_CHECK(cudaStreamSynchronize(download_));
    // Event times on the host's axis: the anchor's host time plus each event's offset from it.
    auto at = [&](cudaEvent_t e) {
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, anchor, e));
      return anchor_us + 1000.0 * ms;
    };
    auto gpu_span = [&](const std::string& name, const char* category, const char* track,
                        cudaEvent_t from, cudaEvent_t to) {
      timeline_->add({name, category, timeline_process_, track, at(from), at(to) - at(from)});
    };
    for (int b = 0; b < batches; ++b) {
      BatchEvents& m = *marks[b];
      const std::string suffix = " b" + std::to_string(b);
      timeline_->add({"stage latents" + suffix, "host", timeline_process_, "host", m.stage_start_us,
                      m.stage_end_us - m.stage_start_us});
      gpu_span("upload" + suffix, "copy", "upload stream", m.upload_start, m.upload_end);
      for (int l = 0; l < 5; ++l) {
        gpu_span(kLayerNames[l] + suffix, "kernel", "compute stream", m.layers[l], m.layers[l + 1]);
      }
      gpu_span("download" + suffix, "copy", "download stream", m.download_start, m.download_end);
      timeline_->add({"copy images" + suffix, "host", timeline_process_, "host", m.copy_start_us,
                      m.copy_end_us - m.copy_start_us});
    }
    CUDA_CHECK(cudaEventDestroy(anchor));
  }
  return seconds;
}

}  // namespace lab09
