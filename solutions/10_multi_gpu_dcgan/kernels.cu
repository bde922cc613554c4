// Lab 10 solution: the split and the threads.
//
// - gpu_share: base = num / parts images each, and the first num % parts parts one more. The shares
//   are contiguous and in order, so each GPU's images land in one slice of the output, and the
//   gathered result is byte for byte one GPU's output of the same shares (every image depends on
//   its own z only; the batch's size may change a GEMM's plan, so one GPU runs the same batches).
// - generate_on_gpus: one host thread per GPU. A GPU needs a host thread that keeps feeding it: the
//   pipeline's thread waits on events and copies images out of pinned memory, so one thread driving
//   all GPUs in turn would leave each idle while it serves the others. Threads write disjoint
//   slices of `images`, so they share nothing and need no lock.
#include "labs/10_multi_gpu_dcgan/lab.h"

#include "common/dcgan_model.h"

#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lab10 {

Share gpu_share(int num, int parts, int part) {
  if (num < 0)
    throw std::invalid_argument("gpu_share: num = " + std::to_string(num) + " must be >= 0");
  if (parts < 1)
    throw std::invalid_argument("gpu_share: parts = " + std::to_string(parts) + " must be >= 1");
  if (part < 0 || part >= parts) {
    throw std::invalid_argument("gpu_share: part = " + std::to_string(part) + " is outside 0.." +
                                std::to_string(parts - 1));
  }
  const int base = num / parts, extra = num % parts;
  return {part * base + (part < extra ? part : extra), base + (part < extra ? 1 : 0)};
}

// [walkthrough]
double generate_on_gpus(std::span<GpuWorker* const> workers, std::span<const float> latents,
                        int num, std::span<float> images) {
  using cudalabs::dcgan::kImageFloats;
  using cudalabs::dcgan::kLatent;
  const int parts = static_cast<int>(workers.size());
  if (parts < 1) throw std::invalid_argument("generate_on_gpus: no GPU to run on");
  if (num < 1 || latents.size() < static_cast<std::size_t>(num) * kLatent ||
      images.size() < static_cast<std::size_t>(num) * kImageFloats) {
    throw std::invalid_argument("generate_on_gpus: num = " + std::to_string(num) +
                                " needs more latents or images than given");
  }
  std::vector<std::string> errors(parts);
  std::vector<std::thread> threads;
  threads.reserve(parts);
  const auto start = std::chrono::steady_clock::now();
  for (int p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] {
      try {
        const Share share = gpu_share(num, parts, p);
        workers[p]->generate(latents.subspan(static_cast<std::size_t>(share.first) * kLatent,
                                             static_cast<std::size_t>(share.count) * kLatent),
                             share.count,
                             images.subspan(static_cast<std::size_t>(share.first) * kImageFloats,
                                            static_cast<std::size_t>(share.count) * kImageFloats));
      } catch (const std::exception& e) {
        errors[p] = e.what();  // an exception leaving a std::thread would end the process
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int p = 0; p < parts; ++p) {
    if (!errors[p].empty())
      throw std::runtime_error("GPU " + std::to_string(workers[p]->device()) + ": " + errors[p]);
  }
  return seconds;
}
// [walkthrough]

}  // namespace lab10
