/// @file labs/12_reduce_scan_histogram/lab.h
/// @brief Lab 12 (extension): the parallel patterns beside the GEMM. A sum from one atomic per
/// element to a single pass with a grid-wide finish, an inclusive scan (three kernels, then one
/// pass with decoupled look-back) and a 256-bin histogram with privatized shared-memory atomics,
/// against CUB and Thrust in the same process.
#pragma once

#include "common/gemm_variant.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

/// Lab 12: reductions, scans and histograms. Every kernel takes any count >= 1 and pointers of any
/// alignment of their element type: the 128-bit paths peel the elements before the first 16-byte
/// boundary and finish the tail element by element.
namespace lab12 {

/// Threads per block of every kernel of the lab but the scan of the tile totals.
inline constexpr int kThreadsPerBlock = 256;
/// Bins of the histogram: one per byte value.
inline constexpr int kBins = 256;

// ---- Sum ----

/// The value the launchers of the sums that finish with atomics (every one but `sum_one_pass`)
/// store in the output before their kernel adds to it: -0.0, the one result that a sum of any
/// inputs leaves only when nothing was added (-0 + x is x; -0 + +0 is +0). An output that still
/// holds -0.0 after the launch was never written.
inline constexpr float kSumStart = -0.0f;

/// The most blocks a grid-stride sum launches (a bound on the grid that fills any GPU), so that
/// the one-pass sum's workspace has a size known without asking the device.
inline constexpr int kMaxSumBlocks = 4096;

/// One sum: *sum = input[0] + ... + input[count - 1], in FP32.
struct SumArgs {
  const float* input = nullptr;     ///< device array of `count` floats, any 4-byte alignment
  std::size_t count = 0;            ///< >= 1
  float* sum = nullptr;             ///< device, one float
  void* workspace = nullptr;        ///< device scratch of the variant's workspace_bytes(count)
  std::size_t workspace_bytes = 0;  ///< size of `workspace`
};

/// One rung of the sum's ladder.
struct SumVariant {
  const char* name;     ///< e.g. "sum_warp_shuffle": flags, tables and benchmark names
  const char* summary;  ///< one line: what this rung changes
  /// Validates (std::invalid_argument naming the argument) and enqueues the sum on `stream`.
  void (*launch)(const SumArgs& args, cudaStream_t stream);
  /// The main kernel's launch for `count` elements (asks the GPU for its SM count and occupancy).
  cudalabs::KernelLaunch (*describe)(std::size_t count);
  /// Device scratch the launch needs, in bytes (0: none).
  std::size_t (*workspace_bytes)(std::size_t count);
  /// The most additions on any path from one input to the sum, for the launch this rung makes
  /// (asks the GPU, like describe): the k of the error bound sum_error_bound(k, sum of |x|).
  std::int64_t (*addition_depth)(std::size_t count);
  /// True when the rung promises the same bits on every run of the same input on the same GPU
  /// (no float atomics: the order of the additions is fixed).
  bool deterministic;
};

/// The ladder:
/// - `sum_atomic`: one atomicAdd on the output per element
/// - `sum_shared_tree`: one element per thread, a tree in shared memory, one atomicAdd per block
/// - `sum_warp_shuffle`: the tree inside each warp with __shfl_down_sync, shared memory only for
///   the 8 warps' sums, one atomicAdd per block
/// - `sum_multi_element`: a grid that fills the GPU once, each thread summing many elements with
///   128-bit loads before the block's shuffle tree, one atomicAdd per block
/// - `sum_one_pass` (optional challenge): the same, and the last block to finish (an atomic
///   ticket) sums the blocks' partial sums in a fixed order: no float atomics, the same bits on
///   every run
std::span<const SumVariant> sum_variants();

/// The unit roundoff of FP32, 2^-24.
inline constexpr double kFloatUnitRoundoff = 0x1.0p-24;

/// gamma_k = k u / (1 - k u) for FP32's u: a sum whose every input goes through at most k additions
/// is off by at most gamma_k * (sum of |x|) (Higham, "Accuracy and Stability of Numerical
/// Algorithms", section 4.2). Infinity when k u >= 1: no bound is left.
double sum_gamma(std::int64_t depth);

/// The bound on |computed sum - exact sum| for a summation of depth `depth` of inputs whose
/// magnitudes add up to `sum_of_magnitudes`: sum_gamma(depth) * sum_of_magnitudes.
double sum_error_bound(std::int64_t depth, double sum_of_magnitudes);

// ---- Inclusive scan ----

/// Threads per block of every scan kernel (the one block that scans the tiles' totals too).
inline constexpr int kScanThreads = 256;
/// Elements each thread of a tile holds: a tile is kScanThreads * kScanItemsPerThread = 4096.
inline constexpr int kScanItemsPerThread = 16;
/// Elements per tile.
inline constexpr int kScanTile = kScanThreads * kScanItemsPerThread;

/// Threads per block of the look-back scan (the optional challenge's scan_lookback). Its tile has
/// a shape of its own: a block holds its tile in registers until its predecessors have published,
/// so the shape decides how many bytes an SM keeps in flight while blocks wait on each other.
inline constexpr int kLookbackThreads = 128;
/// Elements each thread of a look-back tile holds (a multiple of 4: whole 128-bit vectors).
inline constexpr int kLookbackItemsPerThread = 32;
/// Elements per look-back tile.
inline constexpr int kLookbackTile = kLookbackThreads * kLookbackItemsPerThread;

/// One inclusive scan: output[i] = input[0] + ... + input[i], modulo 2^32 (unsigned 32-bit
/// arithmetic is associative, so every order of additions gives the same bits).
struct ScanArgs {
  const std::uint32_t* input = nullptr;  ///< device array of `count` values, any 4-byte alignment
  std::uint32_t* output = nullptr;       ///< device array of `count` values, not overlapping input
  std::size_t count = 0;                 ///< >= 1
  void* workspace = nullptr;             ///< device scratch of the variant's workspace_bytes(count)
  std::size_t workspace_bytes = 0;       ///< size of `workspace`
};

/// One rung of the scan's ladder.
struct ScanVariant {
  const char* name;     ///< "scan_block" or "scan_lookback"
  const char* summary;  ///< one line: what this rung changes
  /// Validates (std::invalid_argument naming the argument) and enqueues the scan on `stream`.
  void (*launch)(const ScanArgs& args, cudaStream_t stream);
  /// The tile kernel's launch for `count` elements.
  cudalabs::KernelLaunch (*describe)(std::size_t count);
  /// Device scratch the launch needs, in bytes.
  std::size_t (*workspace_bytes)(std::size_t count);
};

/// The ladder:
/// - `scan_block`: three kernels: each block scans its tile of 4096 and writes the tile's total,
///   one block scans the totals with the same tile scan, each block adds the sum of the tiles
///   before its own
/// - `scan_lookback` (optional challenge): one pass (Merrill and Garland's decoupled look-back):
///   each tile publishes its total, then its inclusive prefix, and finds its own prefix from its
///   predecessors' in the same pass
std::span<const ScanVariant> scan_variants();

/// Status of a tile in the look-back scan, in the top 32 bits of its 64-bit status word (the low
/// 32 bits hold the value): nothing published yet (the workspace is cleared before each launch).
inline constexpr std::uint64_t kTileInvalid = 0;
/// The tile's own total (its aggregate) is published.
inline constexpr std::uint64_t kTileAggregate = 1;
/// The sum of every element up to the tile's last (its inclusive prefix) is published.
inline constexpr std::uint64_t kTileInclusive = 2;

/// A status word: the flag in the top half, the value in the bottom half. One 64-bit store
/// publishes both, so a reader never sees a flag without its value.
__host__ __device__ constexpr std::uint64_t tile_status(std::uint64_t flag, std::uint32_t value) {
  return (flag << 32) | value;
}

/// The look-back scan's state in its workspace: a counter that hands out tile numbers in the
/// order blocks start (so a tile's predecessors have all started: waiting on them cannot
/// deadlock), and one status word per tile.
struct ScanTileState {
  unsigned int* next_tile;     ///< the next tile to hand out, cleared before each launch
  unsigned long long* status;  ///< the tiles' status words, cleared before each launch
};

// ---- Histogram ----

/// One histogram: bins[v] = the number of bytes of input equal to v, for v = 0 .. 255.
struct HistogramArgs {
  const std::uint8_t* input = nullptr;  ///< device array of `count` bytes, any alignment
  std::size_t count = 0;                ///< >= 1 and < 2^32 (a bin is a 32-bit counter)
  std::uint32_t* bins = nullptr;        ///< device array of kBins counters
};

/// One rung of the histogram's ladder.
struct HistogramVariant {
  const char* name;     ///< e.g. "hist_shared"
  const char* summary;  ///< one line: what this rung changes
  /// Validates (std::invalid_argument naming the argument), clears the bins and enqueues the
  /// histogram on `stream`.
  void (*launch)(const HistogramArgs& args, cudaStream_t stream);
  /// The kernel's launch for `count` bytes.
  cudalabs::KernelLaunch (*describe)(std::size_t count);
};

/// The ladder:
/// - `hist_global`: one thread per byte, one atomicAdd on the global bins each
/// - `hist_shared`: privatized: each block counts into its own 256 bins in shared memory (16 bytes
///   per 128-bit load), then adds its bins to the global ones
/// - `hist_warp_aggregated` (optional challenge): the same, and the lanes of a warp holding the
///   same byte value find each other (__match_any_sync) so that one of them adds their count: one
///   atomic per distinct value per warp
std::span<const HistogramVariant> histogram_variants();

}  // namespace lab12

/// Which build of lab 12's kernels this program linked: "student" or "solution".
extern "C" const char* cudalabs_lab12_kernels_build();
