// lab12_scan_sweep: configurations of the look-back scan (lookback_scan.cuh's LookbackTuning: the
// tile's shape, the occupancy it asks for, how long the look-back sleeps before and between polls)
// timed against CUB's DeviceScan::InclusiveSum and a cudaMemcpy of the same bytes, in one process.
// It answers "which configuration should scan_lookback run, and is it at least as fast as CUB?"
// with measurements.
//
//   lab12_scan_sweep [--repetitions 30] [--warmups 3] [--output FILE.json]
//
// Every candidate is checked first, bit for bit against CUB on the GPU (the output poisoned
// twice, with two patterns, so that an element never written cannot pass), at the timed sizes
// (2^24, 2^26, 2^28 and an odd count with both arrays off 16-byte alignment, by different
// amounts) and at small counts around every tile size with aligned, equally and unequally
// misaligned arrays; CUB itself is checked against the CPU scan at the timed sizes. A failure
// exits 1. Timing is interleaved: one measurement of every row per round (a few launches between
// two CUDA events), so that a drifting clock hits every row alike; the table shows medians.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/json_record.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "lab.h"
#include "library_reference.h"
#include "lookback_scan.cuh"
#include "reference.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using lab12::LookbackTuning;

struct Options {
  int repetitions = 30;
  int warmups = 3;
  std::string output;
};

// One problem: `count` values, the input `input_offset` and the output `output_offset` elements
// past a 16-byte boundary.
struct Problem {
  std::size_t count;
  int input_offset;
  int output_offset;

  std::string label() const {
    std::string text = "n" + std::to_string(count);
    if (input_offset != 0 || output_offset != 0)
      text += "_in+" + std::to_string(input_offset) + "_out+" + std::to_string(output_offset);
    return text;
  }
};

// The timed problems, and the counts only checked: around the tile sizes of the candidates
// (1024 ... 8192 values) and the warp's 32.
const std::vector<Problem> kTimedProblems = {
    {1u << 24, 0, 0}, {1u << 26, 0, 0}, {1u << 28, 0, 0}, {100000001, 1, 3}};
const std::vector<std::size_t> kCheckedCounts = {1,    31,   129,  1023,  1025,  3071,   3073,
                                                 4097, 6145, 8193, 12289, 24577, 1000003};
const int kCheckedOffsets[][2] = {{0, 0}, {1, 3}, {2, 2}};

// Enqueues the scan of `count` values with a workspace of `workspace_bytes`.
using ScanLaunch =
    std::function<void(const std::uint32_t* input, std::uint32_t* output, std::size_t count,
                       void* workspace, std::size_t workspace_bytes, cudaStream_t stream)>;

// One row of the sweep: a configuration of the look-back scan, or one of the lab's scan variants
// through its own launcher (scan_lookback runs kLookbackTuning: the same kernel as its row).
struct Candidate {
  std::string name;
  LookbackTuning tuning{};
  ScanLaunch launch;
  const void* kernel = nullptr;  // the 128-bit kernel, for its registers and occupancy
};

std::size_t candidate_tiles(const LookbackTuning& t, std::size_t count) {
  const std::size_t tile = static_cast<std::size_t>(t.threads) * t.items_per_thread;
  return (count + tile - 1) / tile;
}

// The workspace of the smallest tile any candidate uses: 16 bytes of counter, a word per tile.
std::size_t workspace_bytes(std::size_t count) {
  return 16 + (count / 1024 + 1) * sizeof(unsigned long long);
}

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

// ---- Inputs and checks on the GPU ----

__global__ void fill_random_kernel(std::uint32_t* values, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    values[i] = static_cast<std::uint32_t>(cudalabs::splitmix64_at(seed, i));
}

// mismatch[0] counts the elements that differ, mismatch[1] is the first of them (or ~0).
__global__ void compare_kernel(const std::uint32_t* got, const std::uint32_t* want,
                               std::size_t count, unsigned long long* mismatch) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (got[i] != want[i]) {
      atomicAdd(&mismatch[0], 1ull);
      atomicMin(&mismatch[1], static_cast<unsigned long long>(i));
    }
  }
}

constexpr int kHelperBlocks = 1024, kHelperThreads = 256;

// The arrays of one problem, each offset from a 16-byte aligned allocation.
struct Arrays {
  cudalabs::DeviceBuffer<std::uint32_t> input, output, reference;
  cudalabs::DeviceBuffer<unsigned char> workspace, cub_workspace;
  cudalabs::DeviceBuffer<unsigned long long> mismatch{2};
  Problem problem{};

  Arrays(std::size_t largest)
      : input(largest + 4),
        output(largest + 4),
        reference(largest),
        workspace(workspace_bytes(largest)),
        cub_workspace(lab12_library::cub_scan_workspace(largest)) {}

  const std::uint32_t* in() const { return input.data() + problem.input_offset; }
  std::uint32_t* out() { return output.data() + problem.output_offset; }

  // Draws the input and scans it with CUB into `reference`.
  void prepare(const Problem& p, std::uint64_t seed) {
    problem = p;
    fill_random_kernel<<<kHelperBlocks, kHelperThreads>>>(input.data(), p.count + 4, seed);
    CUDA_CHECK_LAUNCH("fill_random_kernel");
    scan_with_cub(reference.data());
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  void scan_with_cub(std::uint32_t* into, cudaStream_t stream = nullptr) {
    lab12_library::cub_inclusive_scan(in(), into, problem.count, cub_workspace.data(),
                                      cub_workspace.size(), stream);
  }

  // The elements of out() that differ from the reference: {count, first index}.
  std::pair<unsigned long long, unsigned long long> mismatches() {
    const unsigned long long start[2] = {0, std::numeric_limits<unsigned long long>::max()};
    CUDA_CHECK(cudaMemcpy(mismatch.data(), start, sizeof start, cudaMemcpyHostToDevice));
    compare_kernel<<<kHelperBlocks, kHelperThreads>>>(out(), reference.data(), problem.count,
                                                      mismatch.data());
    CUDA_CHECK_LAUNCH("compare_kernel");
    unsigned long long result[2];
    CUDA_CHECK(cudaMemcpy(result, mismatch.data(), sizeof result, cudaMemcpyDeviceToHost));
    return {result[0], result[1]};
  }

  // "" when the candidate's output equals CUB's under both poisons, else what went wrong.
  std::string check(const Candidate& c) {
    for (const int poison : {0xFF, 0x00}) {
      CUDA_CHECK(cudaMemset(output.data(), poison, output.bytes()));
      c.launch(in(), out(), problem.count, workspace.data(), workspace.size(), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const auto [count, first] = mismatches();
      if (count != 0)
        return std::to_string(count) + " values differ from CUB's at " + problem.label() +
               " (poison 0x" + (poison ? "FF" : "00") + "), the first at index " +
               std::to_string(first);
    }
    return "";
  }

  // CUB's scan against the CPU's, every element.
  void check_cub_on_cpu() {
    std::vector<std::uint32_t> host_input(problem.count), host_output(problem.count);
    CUDA_CHECK(cudaMemcpy(host_input.data(), in(), problem.count * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_output.data(), reference.data(), problem.count * 4,
                          cudaMemcpyDeviceToHost));
    if (host_output != lab12::reference_inclusive_scan(host_input))
      throw std::runtime_error("CUB's scan differs from the CPU's at " + problem.label());
  }
};

// ---- Timing ----

struct Row {
  std::string name;
  std::function<void(cudaStream_t)> launch;
  const Candidate* candidate = nullptr;
  std::vector<double> ms;
};

double median_ms(const Row& row) {
  return cudalabs::median(row.ms);
}

struct KernelFacts {
  int registers = 0;
  int blocks_per_sm = 0;
};

KernelFacts facts_of(const Candidate& c) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, c.kernel));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.tuning.threads, 0));
  return {attributes.numRegs, blocks};
}

nlohmann::json time_problem(Arrays& arrays, const std::vector<Candidate>& all,
                            const Options& options) {
  const Problem& problem = arrays.problem;
  std::vector<Row> rows;
  rows.push_back({"cudaMemcpy",
                  [&](cudaStream_t s) {
                    CUDA_CHECK(cudaMemcpyAsync(arrays.out(), arrays.in(), problem.count * 4,
                                               cudaMemcpyDeviceToDevice, s));
                  },
                  nullptr,
                  {}});
  rows.push_back(
      {"cub", [&](cudaStream_t s) { arrays.scan_with_cub(arrays.out(), s); }, nullptr, {}});
  for (const Candidate& c : all) {
    rows.push_back({c.name,
                    [&arrays, &c](cudaStream_t s) {
                      c.launch(arrays.in(), arrays.out(), arrays.problem.count,
                               arrays.workspace.data(), arrays.workspace.size(), s);
                    },
                    &c,
                    {}});
  }
  // A measurement is `batch` launches back to back between two events (about 2 ms of work), so
  // that the host's enqueueing hides behind the GPU's work.
  const double estimate_ms = cudalabs::median(cudalabs::time_each_run_ms(
      [&](cudaStream_t s, int) { rows[1].launch(s); }, options.warmups, 5));
  const int batch = static_cast<int>(std::clamp(2.0 / estimate_ms, 1.0, 50.0));
  auto measure = [&](Row& row, int warmups) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch; ++i) row.launch(s);
    };
    return cudalabs::time_each_run_ms(runs, warmups, 1).front() / batch;
  };
  for (Row& row : rows) measure(row, options.warmups);
  for (int round = 0; round < options.repetitions; ++round) {
    // Each round starts at another row, so that no row always follows the same one.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Row& row = rows[(i + round) % rows.size()];
      row.ms.push_back(measure(row, 0));
    }
  }

  const double bytes = 8.0 * static_cast<double>(problem.count);  // read once, written once
  const double cub_ms = median_ms(rows[1]);
  std::printf(
      "\ninclusive scan of %zu uint32 (%s), medians of %d interleaved rounds, %d launches "
      "each\n",
      problem.count, problem.label().c_str(), options.repetitions, batch);
  cudalabs::TextTable table({{"row", false},
                             {"ms", true},
                             {"GB/s", true},
                             {"x CUB", true},
                             {"registers", true},
                             {"blocks/SM", true}});
  nlohmann::json records = nlohmann::json::array();
  for (const Row& row : rows) {
    const double ms = median_ms(row);
    const double gbps = bytes / (ms * 1e-3) * 1e-9;
    const double vs_cub = cub_ms / ms;
    nlohmann::json record = {{"name", "lab12_scan_sweep/" + row.name + "/" + problem.label()},
                             {"row", row.name},
                             {"problem", problem.label()},
                             {"count", problem.count},
                             {"real_time", ms},
                             {"time_unit", "ms"},
                             {"gbytes_per_s", gbps},
                             {"vs_cub", vs_cub},
                             {"launches_per_measurement", batch},
                             {"times_ms", row.ms}};
    std::string registers = "-", blocks = "-";
    if (row.candidate != nullptr) {
      const KernelFacts facts = facts_of(*row.candidate);
      registers = std::to_string(facts.registers);
      blocks = std::to_string(facts.blocks_per_sm);
      record["registers"] = facts.registers;
      record["blocks_per_sm"] = facts.blocks_per_sm;
      record["threads"] = row.candidate->tuning.threads;
      record["items_per_thread"] = row.candidate->tuning.items_per_thread;
      record["check"] = "PASS";
    }
    table.add_row({row.name, cudalabs::TextTable::number(ms, 4),
                   cudalabs::TextTable::number(gbps, 0), cudalabs::TextTable::number(vs_cub, 3),
                   registers, blocks});
    records.push_back(record);
  }
  table.print(std::cout);
  return records;
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{"Times configurations of lab 12's look-back scan against CUB's DeviceScan"};
  cudalabs::add_integer_flag(app, "--repetitions", options.repetitions, 1, 1000,
                             "Interleaved rounds of timing; the table shows medians");
  cudalabs::add_integer_flag(app, "--warmups", options.warmups, 0, 100,
                             "Untimed measurements of every row first");
  app.add_option("--output", options.output, "Write every measurement to FILE as JSON")
      ->type_name("FILE");
  cudalabs::parse_flags(app, argc, argv);
  if (!options.output.empty()) cudalabs::write_json_file(options.output, nlohmann::json::object());
  cudalabs::require_gpu();

  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  const std::uint64_t seed = cudalabs::run_seed();
  std::printf("%s: %s (sm_%d%d, %d SMs), seed %llu, commit %s\n", cudalabs::program_name().c_str(),
              device.name.c_str(), device.major, device.minor, device.sm_count,
              static_cast<unsigned long long>(seed), cudalabs::built_from_commit().c_str());

  const std::vector<Candidate> all = candidates();
  std::size_t largest = 0;
  for (const Problem& p : kTimedProblems) largest = std::max(largest, p.count);
  cudalabs::require_device_memory(3 * 4 * (largest + 4) + workspace_bytes(largest),
                                  "lab12_scan_sweep's problems");
  Arrays arrays(largest);

  // Checks: every candidate at the small counts, then at the timed problems (CUB against the CPU
  // there too).
  int failures = 0;
  std::size_t checks = 0;
  auto check_all = [&] {
    for (const Candidate& c : all) {
      const std::string failure = arrays.check(c);
      ++checks;
      if (!failure.empty()) {
        std::printf("FAIL %s: %s\n", c.name.c_str(), failure.c_str());
        ++failures;
      }
    }
  };
  for (const std::size_t count : kCheckedCounts) {
    for (const auto& offsets : kCheckedOffsets) {
      arrays.prepare({count, offsets[0], offsets[1]},
                     cudalabs::derive_seed(seed, "small " + std::to_string(count)));
      arrays.check_cub_on_cpu();
      check_all();
    }
  }
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const Problem& p : kTimedProblems) {
    arrays.prepare(p, cudalabs::derive_seed(seed, p.label()));
    arrays.check_cub_on_cpu();
    check_all();
    if (failures == 0) {
      for (nlohmann::json& record : time_problem(arrays, all, options))
        benchmarks.push_back(std::move(record));
    }
  }
  std::printf(
      "\nchecks: %zu of %zu passed (every candidate against CUB, bit for bit; CUB "
      "against the CPU)\n",
      checks - failures, checks);

  if (!options.output.empty()) {
    nlohmann::json context = cudalabs::run_context(device, argc, argv, seed);
    context.update(nlohmann::json{
        {"date", cudalabs::utc_timestamp()},
        {"repetitions", options.repetitions},
        {"timing", "CUDA events around a few launches back to back; rounds interleaved, medians"},
        {"checks_passed", checks - failures},
        {"checks", checks}});
    cudalabs::write_json_file(options.output, {{"context", context}, {"benchmarks", benchmarks}});
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
