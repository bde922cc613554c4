/// @file grader/labs/lab10_remote.h
/// @brief Lab 10's remote functions, declared once for the referee (lab10_proxy.cpp) and the
/// runner (lab10_runner.cpp): grader/remote.h. Both reply host bytes, not buffers: the share as
/// two int64s, the generation as the seconds (f64) then the images (bytes).
#pragma once

#include "grader/remote.h"

namespace grader::lab10_remote {

/// lab10::gpu_share(num, parts, part).
struct Share {
  static constexpr const char* kFunction = "lab10.share";
  int num, parts, part;
  static constexpr auto kWire = remote::wire(&Share::num, &Share::parts, &Share::part);
};

/// lab10::generate_on_gpus over `workers` stand-ins (lab10_workers.cpp), `num` images from the
/// latents (floats, as host bytes); each worker's device and batch, in the workers' order.
struct Generate {
  static constexpr const char* kFunction = "lab10.generate";
  int num, workers;
  remote::IntList devices_and_batches;  // 2 per worker: device, batch
  remote::HostData latents;
  static constexpr auto kWire = remote::wire(&Generate::num, &Generate::workers,
                                             &Generate::devices_and_batches, &Generate::latents);
};

/// The callback a stand-in worker's generate() makes (lab10_workers.cpp) for the referee to run
/// the real worker (lab10_proxy.cpp): index and count (i64 each) and the latents (bytes); the
/// reply is the worker's seconds (f64) and its images (bytes).
inline constexpr char kWorkerGenerate[] = "worker.generate";

}  // namespace grader::lab10_remote
