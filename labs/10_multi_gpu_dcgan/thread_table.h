/// @file labs/10_multi_gpu_dcgan/thread_table.h
/// @brief The threaded program's own checks and runs: the harness's check of gpu_share, and
/// [DCGAN-SHPC]'s Table 4 on the workers of this machine, timed by the kit's host clock
/// (common/host_timing.h) and checked again in the buffers it was timed in.
#pragma once

#include "common/run_protocol.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

#include <ostream>
#include <span>
#include <vector>

namespace lab10 {

/// The harness's check of gpu_share for `parts` GPUs: in order, tiling [0, num), balanced. Prints
/// one line naming what is wrong (or "not implemented yet") and returns false, else true.
bool check_shares(int num, int parts, std::ostream& out);

/// The split's checks: check_shares for `num` images on `workers` GPUs and three more shapes (more
/// parts than images, uneven, large), then "gpu_share: PASS ..." on `out`. False when one failed.
bool check_split(int num, int workers, std::ostream& out);

/// The worker devices: `listed` (--devices) when given, else GPUs 0 .. `gpus` - 1 (--gpus; 0: all
/// `present`). FlagError naming the flag for a GPU that is not there.
std::vector<int> choose_devices(int gpus, const std::vector<int>& listed, int present);

/// The table's timed input and output (host memory), sized for its largest row.
struct TimedBuffers {
  std::vector<float> latents;  ///< drawn from derive_seed(seed, "scaling")
  std::vector<float> images;   ///< the largest row's images
};

/// Fills `buffers` and adds every cell (num x the first G workers) to `session` as a host-timed run
/// of generate_on_gpus in them, with its recheck: fresh latents drawn into the timed input, the
/// timed images and the cell's workers poisoned (refill_for_recheck), one run on all of them, the
/// sampled images against the CPU reference and the whole output against the first worker's alone.
/// `table`, `workers` and `buffers` must outlive the session's timing and rechecks.
void add_thread_table(cudalabs::TimedSession& session, const ScalingTable& table,
                      std::span<GpuWorker* const> workers, TimedBuffers& buffers);

}  // namespace lab10
