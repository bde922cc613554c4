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

namespace lab10 {

Share gpu_share(int num, int parts, int part) {
  // TODO(lab10): the balanced share of part `part`.
  (void)num;
  (void)parts;
  (void)part;
  return {};
}

double generate_on_gpus(std::span<GpuWorker* const> workers, std::span<const float> latents,
                        int num, std::span<float> images) {
  // TODO(lab10): one host thread per worker, each generating its share into its place in `images`.
  (void)workers;
  (void)latents;
  (void)num;
  (void)images;
  return 0.0;
}

}  // namespace lab10
