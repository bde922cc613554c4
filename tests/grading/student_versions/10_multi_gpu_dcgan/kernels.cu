// Lab 10: what you write. The kernels are lab 09's (your own, through the student build); what this
// lab teaches is how to keep several GPUs busy on one job from the host.
//
// 1. gpu_share: split num images over `parts` GPUs, in order and balanced (lab.h says exactly how).
//    The driver and the MPI program both use it, so the threads and the ranks agree on who does
//    what.
// 2. generate_on_gpus: one std::thread per worker. Each thread takes its share and calls
//    workers[p]->generate on the matching slices of `latents` and `images` (GpuWorker makes its GPU
//    current on the calling thread). A thread must not let an exception escape (std::terminate):
//    catch it, keep it (std::exception_ptr or its message), and after joining every thread throw
//    std::runtime_error("GPU <device>: <message>") for the first failing worker. Time from before
//    the first thread starts to after the last one is joined (std::chrono::steady_clock).
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/dcgan_model.h"

namespace lab10 {

Share gpu_share(int num, int parts, int part) {
  if (num < 0)
    throw std::invalid_argument("gpu_share: num = " + std::to_string(num) + " must be >= 0");
  if (parts < 1)
    throw std::invalid_argument("gpu_share: parts = " + std::to_string(parts) + " must be >= 1");
  if (part < 0 || part >= parts) {
    throw std::invalid_argument("gpu_share: part = " + std::to_string(part) + " must be in [0, " +
                                std::to_string(parts) + ")");
  }
  const int base = num / parts, extra = num % parts;
  Share share;
  share.count = base + (part < extra ? 1 : 0);
  share.first = part * base + (part < extra ? part : extra);
  return share;
}

double generate_on_gpus(std::span<GpuWorker* const> workers, std::span<const float> latents,
                        int num, std::span<float> images) {
  using cudalabs::dcgan::kImageFloats;
  using cudalabs::dcgan::kLatent;
  const int parts = static_cast<int>(workers.size());
  std::vector<std::string> errors(workers.size());
  std::vector<std::thread> threads;
  threads.reserve(workers.size());
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
      } catch (const std::exception& error) {
        errors[p] = error.what();
        if (errors[p].empty()) errors[p] = "unknown error";
      } catch (...) {
        errors[p] = "unknown error";
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

}  // namespace lab10
