#include "labs/10_multi_gpu_dcgan/thread_table.h"

#include "common/cli.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <algorithm>
#include <sstream>
#include <string>

namespace lab10 {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;

bool check_shares(int num, int parts, std::ostream& out) {
  std::ostringstream problem;
  int next = 0, smallest = num, largest = 0;
  bool all_empty = true;
  for (int p = 0; p < parts && problem.str().empty(); ++p) {
    const Share share = gpu_share(num, parts, p);
    all_empty = all_empty && share.count == 0;
    if (share.first != next || share.count < 0) {
      problem << "part " << p << " is [" << share.first << ", " << share.first + share.count
              << "), expected it to start at " << next;
    }
    next = share.first + share.count;
    smallest = std::min(smallest, share.count);
    largest = std::max(largest, share.count);
  }
  if (all_empty && num > 0) {
    out << "gpu_share: every share is empty: not implemented yet\n";
    return false;
  }
  if (problem.str().empty() && next != num)
    problem << "the parts end at " << next << ", not at num = " << num;
  if (problem.str().empty() && largest - smallest > 1)
    problem << "shares of " << smallest << " and " << largest << " images";
  if (!problem.str().empty()) {
    out << "gpu_share(" << num << ", " << parts << "): FAIL: " << problem.str() << "\n";
    return false;
  }
  return true;
}

bool check_split(int num, int workers, std::ostream& out) {
  bool passed = true;
  const std::pair<int, int> split_cases[] = {{num, workers}, {10, 3}, {5, 7}, {65536, 4}};
  for (const auto& [images_count, parts] : split_cases)
    passed = check_shares(images_count, parts, out) && passed;
  if (passed) out << "gpu_share: PASS (in order, tiling every image, balanced)\n";
  return passed;
}

std::vector<int> choose_devices(int gpus, const std::vector<int>& listed, int present) {
  for (int d : listed) {
    if (d >= present) {
      throw cudalabs::FlagError("--devices: GPU " + std::to_string(d) + " does not exist (" +
                                std::to_string(present) + " present)");
    }
  }
  if (!listed.empty()) return listed;
  if (gpus > present) {
    throw cudalabs::FlagError("--gpus: " + std::to_string(gpus) + " GPUs asked for, " +
                              std::to_string(present) + " present");
  }
  std::vector<int> devices(gpus > 0 ? gpus : present);
  for (std::size_t i = 0; i < devices.size(); ++i) devices[i] = static_cast<int>(i);
  return devices;
}

namespace {

// One cell again after timing, in the buffers it was timed in (add_thread_table).
cudalabs::Recheck recheck_cell(const ScalingTable& table, std::span<GpuWorker* const> cell, int num,
                               TimedBuffers& buffers) {
  const int gpus = static_cast<int>(cell.size());
  const std::span<const float> latents =
      refill_for_recheck(table, num, gpus, buffers.latents, buffers.images);
  for (GpuWorker* worker : cell) worker->poison();
  generate_on_gpus(cell, buffers.latents, num, buffers.images);
  return recheck_run(
      table.weights, latents,
      std::span<const float>(buffers.images).first(static_cast<std::size_t>(num) * kImageFloats),
      num, table.check_images,
      share_by_share([worker = cell[0]](std::span<const float> l, int count,
                                        std::span<float> i) { worker->generate(l, count, i); },
                     latents, num, gpus),
      table.precision);
}

}  // namespace

void add_thread_table(cudalabs::TimedSession& session, const ScalingTable& table,
                      std::span<GpuWorker* const> workers, TimedBuffers& buffers) {
  const int largest = *std::max_element(table.nums.begin(), table.nums.end());
  buffers.latents = timed_latents(table, largest);
  buffers.images.assign(static_cast<std::size_t>(largest) * kImageFloats, 0.0f);
  for (int num : table.nums) {
    for (int g : table.gpu_counts) {
      const std::span<GpuWorker* const> cell = workers.first(static_cast<std::size_t>(g));
      session.add_host(scaling_run(
          "threads", num, g,
          [&buffers, cell, num] {
            return generate_on_gpus(cell, buffers.latents, num, buffers.images);
          },
          [&table, &buffers, cell, num] { return recheck_cell(table, cell, num, buffers); }));
    }
  }
}

}  // namespace lab10
