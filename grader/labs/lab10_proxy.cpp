// Lab 10's interface as the referee links it: gpu_share, and generate_on_gpus made in the runner
// over stand-ins of the referee's real workers; each stand-in's generate() comes back here and runs
// the real worker on a thread of its own, so the workers' own clocks (GpuWorker::last_run) say
// whether the student's threads ran them at the same time. The calls: lab10_remote.h.
#include "common/dcgan_model.h"
#include "grader/labs/lab10_remote.h"
#include "grader/referee/remote_operand.h"
#include "grader/referee/workload.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <cstring>
#include <stdexcept>

namespace lab10 {

Share gpu_share(int num, int parts, int part) {
  grader::referee::OperandSession session(grader::referee::RemoteRunner::shared(), nullptr);
  const auto results = session.run({grader::remote::to_call(
      grader::lab10_remote::Share{.num = num, .parts = parts, .part = part})});
  if (results.size() != 1 || results[0].size() != 16)
    throw std::runtime_error(std::string(grader::lab10_remote::Share::kFunction) +
                             ": malformed result");
  grader::Reader in(results[0]);
  Share share;
  share.first = static_cast<int>(in.i64());
  share.count = static_cast<int>(in.i64());
  return share;
}

double generate_on_gpus(std::span<GpuWorker* const> workers, std::span<const float> latents,
                        int num, std::span<float> images) {
  using cudalabs::dcgan::kImageFloats;
  using cudalabs::dcgan::kLatent;
  grader::lab10_remote::Generate call{.num = num,
                                      .workers = static_cast<int>(workers.size()),
                                      .devices_and_batches = {},
                                      .latents = {}};
  for (GpuWorker* worker : workers) {
    call.devices_and_batches.values.push_back(worker->device());
    call.devices_and_batches.values.push_back(worker->batch());
  }
  const std::size_t latent_floats =
      std::min(latents.size(), static_cast<std::size_t>(std::max(num, 0)) * kLatent);
  call.latents.bytes.assign(reinterpret_cast<const std::uint8_t*>(latents.data()),
                            reinterpret_cast<const std::uint8_t*>(latents.data() + latent_floats));
  auto serve = [&workers](const std::string& kind,
                          grader::Reader& in) -> std::vector<std::uint8_t> {
    using grader::lab10_remote::kWorkerGenerate;
    if (kind != kWorkerGenerate) throw std::runtime_error("unknown callback " + kind);
    const std::int64_t index = in.i64();
    const std::int64_t count = in.i64();
    const auto [data, size] = in.bytes();
    if (index < 0 || index >= static_cast<std::int64_t>(workers.size()) || count < 0 ||
        count > (1 << 20) || size != static_cast<std::size_t>(count) * kLatent * sizeof(float))
      throw std::runtime_error(std::string(kWorkerGenerate) + ": malformed request");
    std::vector<float> part_latents(static_cast<std::size_t>(count) * kLatent);
    std::memcpy(part_latents.data(), data, size);
    std::vector<float> part_images(static_cast<std::size_t>(count) * kImageFloats);
    const double seconds = workers[static_cast<std::size_t>(index)]->generate(
        part_latents, static_cast<int>(count), part_images);
    grader::Writer out;
    out.f64(seconds);
    out.bytes(part_images.data(), part_images.size() * sizeof(float));
    return out.data();
  };
  grader::referee::OperandSession session(grader::referee::RemoteRunner::shared(), nullptr);
  const auto results = session.run({grader::remote::to_call(call)}, serve);
  if (results.size() != 1)
    throw std::runtime_error(std::string(call.kFunction) + ": malformed result");
  grader::Reader in(results[0]);
  const double seconds = in.f64();
  const auto [data, size] = in.bytes();
  if (size != static_cast<std::size_t>(std::max(num, 0)) * kImageFloats * sizeof(float) ||
      images.size() * sizeof(float) < size)
    throw std::runtime_error(std::string(call.kFunction) + ": the result has the wrong size");
  std::memcpy(images.data(), data, size);
  return seconds;
}

}  // namespace lab10

std::unique_ptr<grader::referee::Workload> grader::referee::make_workload(
    const std::string&, const std::vector<std::string>&) {
  return nullptr;  // lab 10 is host code: graded by its tests, not timed or profiled
}
