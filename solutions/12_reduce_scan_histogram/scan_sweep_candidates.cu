#include "scan_sweep_candidates.cuh"

#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "lab.h"

#include <cstdint>
#include <string>

namespace lab12::sweep {

namespace {

using lab12::LookbackTuning;

std::size_t candidate_tiles(const LookbackTuning& t, std::size_t count) {
  const std::size_t tile = static_cast<std::size_t>(t.threads) * t.items_per_thread;
  return (count + tile - 1) / tile;
}

}  // namespace

std::size_t workspace_bytes(std::size_t count) {
  return 16 + (count / 1024 + 1) * sizeof(unsigned long long);
}

namespace {

template <LookbackTuning kTuning>
void launch_candidate(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                      void* workspace, std::size_t, cudaStream_t stream) {
  const std::size_t tiles = candidate_tiles(kTuning, count);
  auto* bytes = static_cast<unsigned char*>(workspace);
  const lab12::ScanTileState state{reinterpret_cast<unsigned int*>(bytes),
                                   reinterpret_cast<unsigned long long*>(bytes + 16)};
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, 16 + tiles * sizeof(unsigned long long), stream));
  const dim3 grid(static_cast<unsigned>(tiles)), block(kTuning.threads);
  const bool vectorized = reinterpret_cast<std::uintptr_t>(input) % 16 == 0 &&
                          reinterpret_cast<std::uintptr_t>(output) % 16 == 0;
  if (vectorized) {
    lab12::lookback_candidate<kTuning, 4><<<grid, block, 0, stream>>>(input, output, count, state);
  } else {
    lab12::lookback_candidate<kTuning, 1><<<grid, block, 0, stream>>>(input, output, count, state);
  }
  CUDA_CHECK_LAUNCH("lab12_scan_sweep candidate");
}

std::string describe(const LookbackTuning& t) {
  std::string name = std::to_string(t.threads) + "x" + std::to_string(t.items_per_thread);
  if (t.first_poll_delay_ns > 0 || t.poll_delay_ns > 0)
    name +=
        " sleep " + std::to_string(t.first_poll_delay_ns) + "/" + std::to_string(t.poll_delay_ns);
  if (t.min_blocks_per_sm > 1) name += " min-blocks " + std::to_string(t.min_blocks_per_sm);
  return name;
}

template <LookbackTuning kTuning>
Candidate candidate() {
  return {describe(kTuning), kTuning, &launch_candidate<kTuning>,
          reinterpret_cast<const void*>(lab12::lookback_candidate<kTuning, 4>)};
}

// The lab's own scan variants, each through its launcher (argument checks included).
std::vector<Candidate> lab_variants() {
  std::vector<Candidate> rows;
  for (const lab12::ScanVariant& variant : lab12::scan_variants()) {
    ScanLaunch launch = [&variant](const std::uint32_t* input, std::uint32_t* output,
                                   std::size_t count, void* workspace, std::size_t bytes,
                                   cudaStream_t stream) {
      variant.launch({input, output, count, workspace, bytes}, stream);
    };
    const cudalabs::KernelLaunch config = variant.describe(1u << 20);
    LookbackTuning shape{};
    shape.threads = static_cast<int>(config.block.x);
    shape.items_per_thread = std::string(variant.name) == "scan_block"
                                 ? lab12::kScanItemsPerThread
                                 : lab12::kLookbackItemsPerThread;
    rows.push_back({std::string("lab: ") + variant.name, shape, launch, config.kernel});
  }
  return rows;
}

// The configurations. The first sweep (2026-11-29,
// docs/data/history/lab12_scan_sweep_v1-shapes-sleeps_*): shapes from 128 to 512 threads and 8 to
// 32 values each, sleeps, occupancy caps; only the sleep before the first poll moved the time much,
// and 128x24 with CUB's sleeps (1245 ns first, 648 ns between polls) matched CUB. The second
// (docs/data/results/lab12_scan_sweep_nvidia-h200.txt, built at a501e9e, which also timed a
// look-back waiting in its first window, the aggregate published after the scan and tiles numbered
// by blockIdx.x: knobs since removed) chose 128x32 with CUB's sleeps. The rows below are its
// shapes and sleeps.
constexpr LookbackTuning shape(int threads, int items) {
  LookbackTuning t{};
  t.threads = threads;
  t.items_per_thread = items;
  return t;
}
constexpr LookbackTuning with_sleep(LookbackTuning t, int first_ns, int poll_ns) {
  t.first_poll_delay_ns = first_ns;
  t.poll_delay_ns = poll_ns;
  return t;
}
}  // namespace

std::vector<Candidate> candidates() {
  std::vector<Candidate> rows = lab_variants();
  const std::vector<Candidate> tuned = {
      candidate<with_sleep(shape(128, 24), 0, 0)>(),
      candidate<shape(128, 24)>(),
      candidate<with_sleep(shape(128, 24), 800, 648)>(),
      candidate<with_sleep(shape(128, 24), 1800, 648)>(),
      candidate<with_sleep(shape(128, 24), 2500, 648)>(),
      candidate<with_sleep(shape(128, 24), 1245, 300)>(),
      candidate<with_sleep(shape(128, 24), 1245, 1000)>(),
      candidate<shape(128, 16)>(),
      candidate<shape(128, 20)>(),
      candidate<shape(128, 28)>(),
      candidate<shape(128, 32)>(),
      candidate<with_sleep(shape(128, 32), 1800, 648)>(),
      candidate<shape(256, 16)>(),
      candidate<with_sleep(shape(256, 16), 1800, 648)>(),
      candidate<with_sleep(shape(256, 16), 2500, 648)>(),
      candidate<shape(256, 24)>(),
  };
  rows.insert(rows.end(), tuned.begin(), tuned.end());
  return rows;
}

KernelFacts facts_of(const Candidate& c) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, c.kernel));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.tuning.threads, 0));
  return {attributes.numRegs, blocks};
}

}  // namespace lab12::sweep
