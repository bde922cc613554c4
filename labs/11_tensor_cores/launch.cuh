// Lab 11 launch plumbing, shared by the student's and the solution's kernels.cu (each includes it
// after defining its kernels: wmma_global_kernel<kAligned>, mma_swizzled_kernel<kAligned>,
// wgmma_kernel<kAligned>, tma_wgmma_kernel and warp_specialized_kernel<kWidth>, and the FP16 rungs
// wmma_fp16_kernel<kAligned> and mma_fp16_kernel<kAligned>; wmma_pipelined_kernel<kAligned> is
// given, in wmma_pipelined.cuh). kAligned selects the 16-byte copies (the WMMA loads of step 1:
// 32 bytes), which need A and B so aligned with lda and ldb multiples of 8; other operands take the
// element-wise instantiation of the same kernel. The TMA rungs' tensor maps need the same
// alignment: other operands are first copied, one pass at memory speed, into an aligned scratch
// buffer (stream-ordered, from a pool that keeps its memory), the documented fallback. `best` runs
// the warp-specialized kernel as best_plan.h plans it: the tile width that leaves the fewest SMs
// idle (best_width), and where a C of few tiles over a long K would still leave most of them idle,
// K cut into slices whose partial Cs one more kernel sums (common/slice_sums.cuh); for a C of at
// most 8 columns, the few-columns kernel (few_columns.cuh), for a C of at most 8 rows the few-rows
// kernel (few_rows.cuh), and for a short K the short-K kernel (short_k.cuh), where the model has
// them done sooner.
#pragma once

#include "best_plan.h"
#include "common/aligned_operands.cuh"
#include "common/build_report.h"
#include "common/cuda_check.h"
#include "common/launch_utils.h"
#include "common/remembered_plan.h"
#include "common/slice_sums.cuh"
#include "few_columns.cuh"
#include "few_rows.cuh"
#include "lab.h"
#include "short_k.cuh"
#include "tiles.h"
#include "tma_maps.h"
#include "work_units.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace lab11 {
namespace {

using cudalabs::aligned_to;
using cudalabs::Bf16GemmArgs;
using cudalabs::ceil_div;
using cudalabs::Fp16GemmArgs;
using cudalabs::GemmShape;
using cudalabs::KernelLaunch;

// A and B can be read 16 bytes at a time (cp.async, TMA): aligned, rows a multiple of 8 apart.
template <class Args>
bool chunks_allowed(const Args& args) {
  return cudalabs::rows_allow_16_byte_loads(args.a, args.lda) &&
         cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
}

// WMMA's load_matrix_sync from global memory: 32-byte aligned fragments, ld a multiple of 8.
template <class Args>
bool wmma_direct_allowed(const Args& args) {
  return aligned_to(args.a, 32) && aligned_to(args.b, 32) && args.lda % 8 == 0 && args.ldb % 8 == 0;
}

#ifdef CUDALABS_LAB11_SM90A
constexpr bool kBuiltForSm90a = true;
#else
constexpr bool kBuiltForSm90a = false;
#endif

// The compute capability of the current device.
std::pair<int, int> current_capability() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return {major, minor};
}

// Why a kernel that needs compute capability `needs_arch` (80 for 8.0; 90: Hopper's sm_90a) cannot
// run here; empty when it can. Decided from the GPU and from the code the build holds for it: the
// architecture that code was compiled for (a build for 7.5 alone runs here as JIT-compiled compute
// 7.5 PTX, whose kernels were compiled without the instructions of 8.0), never from the binary
// version, which after JIT compilation is the GPU's own (common/build_report.h).
std::string find_missing_capability(int needs_arch, const void* kernel) {
  const auto [major, minor] = current_capability();
  const int here = 10 * major + minor;
  if (needs_arch == 90) {
    if (major != 9)
      return "needs compute capability 9.0 (sm_90a code runs on Hopper only; this GPU is " +
             cudalabs::arch_text(here) + ")";
    if (!kBuiltForSm90a)
      return "this build has no sm_90a code (configure with 90 in CMAKE_CUDA_ARCHITECTURES)";
  }
  return cudalabs::missing_feature_reason(here, cudalabs::kernel_code(kernel), needs_arch);
}

// find_missing_capability, found once per device, kernel and capability: every launch asks, and
// the runtime's answers (the GPU's capability, the kernel's code) cost microseconds of host time,
// as much as a small GEMM's GPU time.
std::string missing_capability(int needs_arch, const void* kernel) {
  static std::mutex guard;
  static std::map<std::tuple<int, const void*, int>, std::string> found;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::tuple<int, const void*, int> key{device, kernel, needs_arch};
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (const auto known = found.find(key); known != found.end()) return known->second;
  }
  std::string missing = find_missing_capability(needs_arch, kernel);
  const std::lock_guard<std::mutex> lock(guard);
  return found.emplace(key, std::move(missing)).first->second;
}

void require_capability(int needs_arch, const void* kernel, const char* who) {
  const std::string missing = missing_capability(needs_arch, kernel);
  if (!missing.empty()) throw std::runtime_error(std::string(who) + ": " + missing);
}

// Raises a kernel's dynamic shared-memory limit (over 48 KiB needs the opt-in), once per device.
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), bytes);
}

// ---- One block per tile of C on a 2-D grid (steps 1 to 4) ----

template <class Tile>
dim3 tile_grid(const GemmShape& shape, const char* who) {
  return cudalabs::checked_grid(ceil_div(shape.n, Tile::BN), ceil_div(shape.m, Tile::BM), 1, who);
}

KernelLaunch describe_wmma_global(const GemmShape& shape) {
  return {reinterpret_cast<const void*>(&wmma_global_kernel<true>),
          tile_grid<WmmaGlobalTile>(shape, "lab11 wmma_global"), dim3(WmmaGlobalTile::kThreads), 0};
}

std::string wmma_global_unavailable() {
  return missing_capability(80, reinterpret_cast<const void*>(&wmma_global_kernel<true>));
}

void launch_wmma_global(const Bf16GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab11 wmma_global");
  const KernelLaunch config = describe_wmma_global(args.shape());
  require_capability(80, config.kernel, "lab11 wmma_global");
  if (wmma_direct_allowed(args)) {
    wmma_global_kernel<true><<<config.grid, config.block, 0, stream>>>(args);
  } else {
    wmma_global_kernel<false><<<config.grid, config.block, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab11 wmma_global_kernel");
}

// The FP16 rung of step 1 (compute capability 7.0: every GPU CUDA 13 builds for).
KernelLaunch describe_wmma_fp16(const GemmShape& shape) {
  return {reinterpret_cast<const void*>(&wmma_fp16_kernel<true>),
          tile_grid<WmmaGlobalTile>(shape, "lab11 wmma_fp16"), dim3(WmmaGlobalTile::kThreads), 0};
}

std::string wmma_fp16_unavailable() {
  return missing_capability(70, reinterpret_cast<const void*>(&wmma_fp16_kernel<true>));
}

void launch_wmma_fp16(const Fp16GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab11 wmma_fp16");
  const KernelLaunch config = describe_wmma_fp16(args.shape());
  require_capability(70, config.kernel, "lab11 wmma_fp16");
  if (wmma_direct_allowed(args)) {
    wmma_fp16_kernel<true><<<config.grid, config.block, 0, stream>>>(args);
  } else {
    wmma_fp16_kernel<false><<<config.grid, config.block, 0, stream>>>(args);
  }
  CUDA_CHECK_LAUNCH("lab11 wmma_fp16_kernel");
}

// A kernel templated on kAligned, with its tile, the compute capability it needs (80 for 8.0) and
// its arguments (BF16, or FP16 for the FP16 rungs).
template <template <bool> class KernelOf, class Tile, int kNeedsArch, class Args = Bf16GemmArgs>
struct TiledRung {
  static std::string unavailable() {
    return missing_capability(kNeedsArch, reinterpret_cast<const void*>(KernelOf<true>::kernel));
  }
  static KernelLaunch describe(const GemmShape& shape) {
    const void* kernel = reinterpret_cast<const void*>(KernelOf<true>::kernel);
    cudalabs::allow_dynamic_shared_memory(kernel, Tile::kSharedBytes);  // as the launch does
    return {kernel, tile_grid<Tile>(shape, KernelOf<true>::kName), dim3(Tile::kThreads),
            Tile::kSharedBytes};
  }
  static void launch(const Args& args, cudaStream_t stream) {
    cudalabs::validate_gemm_args(args, KernelOf<true>::kName);
    const KernelLaunch config = describe(args.shape());
    require_capability(kNeedsArch, config.kernel, KernelOf<true>::kName);
    if (chunks_allowed(args)) {
      run(KernelOf<true>::kernel, config, args, stream);
    } else {
      run(KernelOf<false>::kernel, config, args, stream);
    }
  }
  template <class Kernel>
  static void run(Kernel kernel, const KernelLaunch& config, const Args& args,
                  cudaStream_t stream) {
    allow_shared(kernel, config.dynamic_shared_bytes);
    kernel<<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(args);
    CUDA_CHECK_LAUNCH(KernelOf<true>::kName);
  }
};

template <bool kAligned>
struct WmmaPipelined {
  static constexpr auto kernel = &wmma_pipelined_kernel<kAligned>;
  static constexpr const char* kName = "lab11 wmma_pipelined";
};
template <bool kAligned>
struct MmaSwizzled {
  static constexpr auto kernel = &mma_swizzled_kernel<kAligned>;
  static constexpr const char* kName = "lab11 mma_swizzled";
};
template <bool kAligned>
struct Wgmma {
  static constexpr auto kernel = &wgmma_kernel<kAligned>;
  static constexpr const char* kName = "lab11 wgmma";
};

template <bool kAligned>
struct MmaFp16 {
  static constexpr auto kernel = &mma_fp16_kernel<kAligned>;
  static constexpr const char* kName = "lab11 mma_fp16";
};

using WmmaPipelinedRung = TiledRung<WmmaPipelined, WmmaPipelinedTile, 80>;
using MmaSwizzledRung = TiledRung<MmaSwizzled, MmaTile, 80>;
using WgmmaRung = TiledRung<Wgmma, WgmmaTile, 90>;
// ldmatrix and FP16 mma.sync: compute capability 7.5.
using MmaFp16Rung = TiledRung<MmaFp16, MmaFp16Tile, 75, Fp16GemmArgs>;

// ---- The TMA rungs (steps 5 and 6): tensor maps, operands repacked where TMA cannot read them
// ----

// A matrix's rows each start a 128-byte line.
bool rows_on_lines(const __nv_bfloat16* matrix, int ld) {
  return aligned_to(matrix, 128) && ld % 64 == 0;
}

// Which operands `best` wants on 128-byte lines (best_plan.h: copy_a_to_lines_pays,
// copy_b_to_lines_pays).
struct OnLines {
  bool a = false;  ///< A's rows each on a line of their own
  bool b = false;  ///< B's rows each on a line of their own
};

// Operands TMA can read (16-byte aligned, rows a multiple of 16 bytes apart): `args` itself, or
// with A and/or B copied in one pass into pooled scratch (common/aligned_operands.cuh). An operand
// `lines` asks for is copied too where its rows are off 128-byte lines, and then copies get rows
// 128 bytes apart.
class TmaOperands : public cudalabs::AlignedOperands<__nv_bfloat16> {
 public:
  TmaOperands(const Bf16GemmArgs& args, cudaStream_t stream, OnLines lines = {})
      : AlignedOperands(args, copied(args.a, args.lda, lines.a), copied(args.b, args.ldb, lines.b),
                        stream, "lab11 repack", lines.a || lines.b ? 64 : 8) {}

 private:
  static bool copied(const __nv_bfloat16* matrix, int ld, bool on_lines) {
    return !cudalabs::rows_allow_16_byte_loads(matrix, ld) ||
           (on_lines && !rows_on_lines(matrix, ld));
  }
};

KernelLaunch describe_tma(const GemmShape& shape) {
  cudalabs::allow_dynamic_shared_memory(reinterpret_cast<const void*>(&tma_wgmma_kernel),
                                        TmaTile::kSharedBytes);
  return {reinterpret_cast<const void*>(&tma_wgmma_kernel),
          tile_grid<TmaTile>(shape, "lab11 tma_wgmma"), dim3(TmaTile::kThreads),
          TmaTile::kSharedBytes};
}

std::string tma_unavailable() {
  return missing_capability(90, reinterpret_cast<const void*>(&tma_wgmma_kernel));
}

void launch_tma(const Bf16GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab11 tma_wgmma");
  const KernelLaunch config = describe_tma(args.shape());
  require_capability(90, config.kernel, "lab11 tma_wgmma");
  const TmaOperands operands(args, stream);
  const Bf16GemmArgs& readable = operands.args();
  const CUtensorMap a_map = bf16_tensor_map(readable.a, args.m, args.k, readable.lda, TmaTile::BM);
  const CUtensorMap b_map =
      bf16_tensor_map(readable.b, args.k, args.n, readable.ldb, SwizzledTile::BK);
  allow_shared(&tma_wgmma_kernel, config.dynamic_shared_bytes);
  tma_wgmma_kernel<<<config.grid, config.block, config.dynamic_shared_bytes, stream>>>(
      readable, a_map, b_map);
  CUDA_CHECK_LAUNCH("lab11 tma_wgmma_kernel");
}

// The warp-specialized kernel's launch on `units`: one persistent block per SM, or per unit where
// there are fewer.
template <int kWidth, int kRows = 128>
KernelLaunch specialized_launch(const WorkUnits& units) {
  using Tile = SpecializedTile<kWidth, kRows>;
  const auto* kernel = reinterpret_cast<const void*>(&warp_specialized_kernel<kWidth, kRows>);
  const long long blocks = std::min<long long>(units.count(), cudalabs::multiprocessor_count());
  cudalabs::allow_dynamic_shared_memory(kernel, Tile::kSharedBytes);
  return {kernel, cudalabs::checked_grid(blocks, 1, 1, "lab11 warp_specialized"),
          dim3(Tile::kThreads), Tile::kSharedBytes};
}

// The units of `shape` on kRows x kWidth tiles with K in `slices` slices, the first `whole_tiles`
// tiles K whole.
template <int kWidth, int kRows = 128>
WorkUnits specialized_units(const GemmShape& shape, int slices, int whole_tiles = 0) {
  return WorkUnits::of(shape, kRows, kWidth, SpecializedTile<kWidth, kRows>::BK, slices,
                       whole_tiles);
}

template <int kWidth, int kRows = 128>
KernelLaunch describe_specialized(const GemmShape& shape) {
  return specialized_launch<kWidth, kRows>(specialized_units<kWidth, kRows>(shape, 1));
}

template <int kWidth, int kRows = 128>
std::string specialized_unavailable() {
  return missing_capability(90,
                            reinterpret_cast<const void*>(&warp_specialized_kernel<kWidth, kRows>));
}

// Runs the warp-specialized kernel on args with K in `slices` slices, the first `whole_tiles`
// tiles K whole: with K whole it writes C; split, it writes the slices' partial Cs into a
// workspace and the last slice of each region to arrive adds them into C (launch_split,
// common/slice_sums.cuh; in a stream being captured, the summing kernel does, each tile's parts
// counted by TailParts), the whole tiles C itself. Operands TMA cannot read are repacked first
// (TmaOperands).
template <int kWidth, int kRows = 128>
void run_specialized(const Bf16GemmArgs& args, int slices, cudaStream_t stream, OnLines lines = {},
                     int whole_tiles = 0) {
  using Tile = SpecializedTile<kWidth, kRows>;
  const WorkUnits units = specialized_units<kWidth, kRows>(args.shape(), slices, whole_tiles);
  const KernelLaunch config = specialized_launch<kWidth, kRows>(units);
  require_capability(90, config.kernel, "lab11 warp_specialized");
  const TmaOperands operands(args, stream, lines);
  const Bf16GemmArgs& readable = operands.args();
  const CUtensorMap a_map = bf16_tensor_map(readable.a, args.m, args.k, readable.lda, kRows);
  const CUtensorMap b_map =
      bf16_tensor_map(readable.b, args.k, args.n, readable.ldb, SwizzledTile::BK);
  allow_shared(&warp_specialized_kernel<kWidth, kRows>, config.dynamic_shared_bytes);
  const auto launch = [&](const Bf16GemmArgs& gemm, const cudalabs::SplitFinish& finish,
                          cudaStream_t on) {
    WorkUnits walked = units;
    walked.finish = finish;
    warp_specialized_kernel<kWidth, kRows>
        <<<config.grid, config.block, config.dynamic_shared_bytes, on>>>(gemm, a_map, b_map,
                                                                         walked);
    CUDA_CHECK_LAUNCH("lab11 warp_specialized_kernel");
  };
  if (!units.split()) return launch(readable, cudalabs::SplitFinish{}, stream);
  const long long regions = static_cast<long long>(units.tiles()) * Tile::kConsumers;
  if (units.whole_tiles == 0)
    return cudalabs::launch_split(readable, slices, regions,
                                  cudalabs::EverySlice{slices, args.m, args.n, 1}, launch, stream,
                                  "lab11 sum_slices_kernel");
  const TailParts parts{Tile::BM,         Tile::BN,          units.tiles_n, units.tiles_m,
                        Tile::kGroupRows, units.whole_tiles, slices};
  cudalabs::launch_split(readable, slices, regions, parts, launch, stream,
                         "lab11 sum_slices_kernel");
}

template <int kWidth, int kRows = 128>
void launch_specialized(const Bf16GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab11 warp_specialized");
  run_specialized<kWidth, kRows>(args, 1, stream);
}

// ---- Kernels that read any alignment in place, K whole or in slices ----

// A kernel of the few-columns or few-rows kind: its arguments, the values of K of each slice but
// the last, and where a split's parts are summed.
using SlicedKernel = void (*)(Bf16GemmArgs, int, cudalabs::SplitFinish);

// Runs `kernel` on args with `config`'s grid and block as `plan` cuts K: with K whole it writes C;
// split, each of a slice's `regions` blocks writes its part into a workspace and the last slice of
// its region to arrive adds them into C (launch_split; in a stream being captured, the summing
// kernel does).
template <class Plan>
void run_sliced(const Bf16GemmArgs& args, SlicedKernel kernel, const KernelLaunch& config,
                const Plan& plan, int regions, const char* what, cudaStream_t stream) {
  const auto launch = [&](const Bf16GemmArgs& gemm, const cudalabs::SplitFinish& finish,
                          cudaStream_t on) {
    kernel<<<config.grid, config.block, 0, on>>>(gemm, plan.slice_k, finish);
    CUDA_CHECK_LAUNCH(what);
  };
  if (!plan.split()) return launch(args, cudalabs::SplitFinish{}, stream);
  cudalabs::launch_split(args, plan.slices, regions,
                         cudalabs::EverySlice{plan.slices, args.m, args.n, 1}, launch, stream,
                         "lab11 sum_slices_kernel");
}

// ---- The few-columns kernel (few_columns.cuh), `best`'s for a C of at most 8 columns ----

// The few-columns kernel for a C of `n` columns (4 or 8 a block) over A whose rows allow loads of
// `load_bytes` (common/row_alignment.h: widest_row_load_bytes).
using FewColumnsKernel = SlicedKernel;
template <int kCols>
FewColumnsKernel few_columns_kernel_of(int load_bytes) {
  switch (load_bytes) {
    case 16:
      return &few_columns_kernel<kCols, 16>;
    case 8:
      return &few_columns_kernel<kCols, 8>;
    case 4:
      return &few_columns_kernel<kCols, 4>;
    default:
      return &few_columns_kernel<kCols, 2>;
  }
}
FewColumnsKernel few_columns_kernel_for(int n, int load_bytes) {
  return n <= 4 ? few_columns_kernel_of<4>(load_bytes) : few_columns_kernel_of<8>(load_bytes);
}

// plan_few_columns for the shape and its loads, remembered (common/remembered_plan.h), one memory
// for each kind of loads (each lambda is a type of its own).
template <bool kWideA, bool kWideB>
const FewColumnsPlan& remembered_few_columns(const GemmShape& shape) {
  return cudalabs::remembered_plan<FewColumnsPlan>(shape, [](const GemmShape& s, int sms) {
    return plan_few_columns(s, sms, {kWideA, kWideB});
  });
}
const FewColumnsPlan& planned_few_columns(const GemmShape& shape, FewColumnsLoads loads) {
  if (loads.wide_a)
    return loads.wide_b ? remembered_few_columns<true, true>(shape)
                        : remembered_few_columns<true, false>(shape);
  return loads.wide_b ? remembered_few_columns<false, true>(shape)
                      : remembered_few_columns<false, false>(shape);
}

// The few-columns kernel's launch for `shape` as `plan` cuts K: a block per 32 rows and slice.
KernelLaunch few_columns_launch(const GemmShape& shape, const FewColumnsPlan& plan,
                                int load_bytes) {
  return {
      reinterpret_cast<const void*>(few_columns_kernel_for(shape.n, load_bytes)),
      cudalabs::checked_grid(few_columns_row_blocks(shape), plan.slices, 1, "lab11 few_columns"),
      dim3(kFewColumnsThreads), 0};
}

// Runs the few-columns kernel on args (few_columns_fit) as `plan` cuts K (run_sliced).
void run_few_columns(const Bf16GemmArgs& args, const FewColumnsPlan& plan, cudaStream_t stream) {
  const int load_bytes = cudalabs::widest_row_load_bytes(args.a, args.lda);
  run_sliced(args, few_columns_kernel_for(args.n, load_bytes),
             few_columns_launch(args.shape(), plan, load_bytes), plan,
             few_columns_row_blocks(args.shape()), "lab11 few_columns_kernel", stream);
}

// ---- The few-rows kernel (few_rows.cuh), `best`'s for a C of at most 8 rows ----

// The few-rows kernel for a C of `m` rows (2, 4 or 8 a block: few_rows_kernel_rows).
using FewRowsKernel = SlicedKernel;
FewRowsKernel few_rows_kernel_for(int m) {
  switch (few_rows_kernel_rows(m)) {
    case 2:
      return &few_rows_kernel<2>;
    case 4:
      return &few_rows_kernel<4>;
    default:
      return &few_rows_kernel<8>;
  }
}

// plan_few_rows for the shape, remembered (common/remembered_plan.h).
const FewRowsPlan& planned_few_rows(const GemmShape& shape) {
  return cudalabs::remembered_plan<FewRowsPlan>(shape, &plan_few_rows);
}

// The few-rows kernel's launch for `shape` as `plan` cuts K: a block per kFewRowsCols columns and
// slice.
KernelLaunch few_rows_launch(const GemmShape& shape, const FewRowsPlan& plan) {
  return {reinterpret_cast<const void*>(few_rows_kernel_for(shape.m)),
          cudalabs::checked_grid(few_rows_col_blocks(shape), plan.slices, 1, "lab11 few_rows"),
          dim3(kFewRowsThreads), 0};
}

// Runs the few-rows kernel on args (few_rows_fit) as `plan` cuts K (run_sliced).
void run_few_rows(const Bf16GemmArgs& args, const FewRowsPlan& plan, cudaStream_t stream) {
  run_sliced(args, few_rows_kernel_for(args.m), few_rows_launch(args.shape(), plan), plan,
             few_rows_col_blocks(args.shape()), "lab11 few_rows_kernel", stream);
}

// ---- The short-K kernel (short_k.cuh), `best`'s where a short K leaves mostly C to write ----

// The copies the short-K kernel takes of args' operands (best_plan.h: short_k_copy_bytes).
ShortKCopies short_k_copies(const Bf16GemmArgs& args) {
  return {short_k_copy_bytes(cudalabs::widest_row_load_bytes(args.a, args.lda)),
          short_k_copy_bytes(cudalabs::widest_row_load_bytes(args.b, args.ldb))};
}

// The widest store C's rows allow, bytes (16, 8 or 4): the warp-specialized kernel's epilogue
// stores that much a lane (staged_store.cuh), and best_plan.h's unaligned_c_us charges the rest.
int c_store_bytes(const Bf16GemmArgs& args) {
  return cudalabs::widest_row_load_bytes(args.c, args.ldc);
}

// The short-K kernel for copies of `a_bytes` of A's rows and `b_bytes` of B's, kStages buffers.
using ShortKKernel = void (*)(Bf16GemmArgs, int);
template <int kStages, int kABytes>
ShortKKernel short_k_kernel_of(int b_bytes) {
  return b_bytes == 16  ? &short_k_mma_kernel<kABytes, 16, kStages>
         : b_bytes == 4 ? &short_k_mma_kernel<kABytes, 4, kStages>
                        : &short_k_mma_kernel<kABytes, 2, kStages>;
}
template <int kStages>
ShortKKernel short_k_kernel_with(int a_bytes, int b_bytes) {
  return a_bytes == 16  ? short_k_kernel_of<kStages, 16>(b_bytes)
         : a_bytes == 4 ? short_k_kernel_of<kStages, 4>(b_bytes)
                        : short_k_kernel_of<kStages, 2>(b_bytes);
}
// The kernel of `plan`: two buffers with K whole, kSlicedStages sliced.
ShortKKernel short_k_kernel_for(ShortKCopies copies, const ShortKPlan& plan) {
  return plan.sliced() ? short_k_kernel_with<kSlicedStages>(copies.a_bytes, copies.b_bytes)
                       : short_k_kernel_with<2>(copies.a_bytes, copies.b_bytes);
}

// The clusters of the sliced kernel this GPU holds at once, by blocks a cluster (ClusterRoom):
// asked of the runtime (cudaOccupancyMaxActiveClusters) with shared memory only one block an SM
// has room for, for clusters of up to the most it runs (cudaOccupancyMaxPotentialClusterSize, at
// most kMaxClusterSlices); none where the GPU runs no clusters (they are Hopper's). Asked once.
const ClusterRoom& sliced_cluster_room() {
  static const ClusterRoom room = [] {
    ClusterRoom asked;
    int device = 0, clusters = 0, sm_bytes = 0, block_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
    if (!clusters) return asked;
    CUDA_CHECK(
        cudaDeviceGetAttribute(&sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    CUDA_CHECK(
        cudaDeviceGetAttribute(&block_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const auto* kernel = reinterpret_cast<const void*>(short_k_kernel_with<kSlicedStages>(16, 16));
    // Past half an SM's shared memory: a block an SM, as the model's clusters run.
    const int alone_bytes =
        std::max(short_k_shared_bytes(kSlicedStages), std::min(block_bytes, sm_bytes / 2 + 1));
    cudalabs::allow_dynamic_shared_memory(kernel, static_cast<std::size_t>(alone_bytes));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1, kMaxClusterSlices);
    config.blockDim = dim3(kShortKThreads);
    config.dynamicSmemBytes = static_cast<std::size_t>(alone_bytes);
    int most = 1;
    CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&most, kernel, &config));
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {1, 1, 1};
    config.attrs = &cluster;
    config.numAttrs = 1;
    for (int blocks = 2; blocks <= std::min(most, kMaxClusterSlices); ++blocks) {
      config.gridDim = dim3(1, static_cast<unsigned>(blocks));
      cluster.val.clusterDim.y = static_cast<unsigned>(blocks);
      CUDA_CHECK(cudaOccupancyMaxActiveClusters(&asked.at_once[blocks], kernel, &config));
    }
    return asked;
  }();
  return room;
}

// plan_short_k for the shape and its copies on this GPU, remembered (common/remembered_plan.h).
template <int kABytes, int kBBytes>
const ShortKPlan& remembered_short_k(const GemmShape& shape) {
  return cudalabs::remembered_plan<ShortKPlan>(shape, [](const GemmShape& s, int sms) {
    return plan_short_k(s, {kABytes, kBBytes}, sms, sliced_cluster_room());
  });
}
template <int kABytes>
const ShortKPlan& planned_short_k_of(const GemmShape& shape, int b_bytes) {
  return b_bytes == 16  ? remembered_short_k<kABytes, 16>(shape)
         : b_bytes == 4 ? remembered_short_k<kABytes, 4>(shape)
                        : remembered_short_k<kABytes, 2>(shape);
}
const ShortKPlan& planned_short_k(const GemmShape& shape, ShortKCopies copies) {
  return copies.a_bytes == 16  ? planned_short_k_of<16>(shape, copies.b_bytes)
         : copies.a_bytes == 4 ? planned_short_k_of<4>(shape, copies.b_bytes)
                               : planned_short_k_of<2>(shape, copies.b_bytes);
}

// Its launch for `shape`: one block per kShortKRows x kShortKCols tile of C (gridDim.x) and slice
// of K (gridDim.y: the blocks of a cluster where sliced).
KernelLaunch short_k_launch(const GemmShape& shape, ShortKCopies copies, const ShortKPlan& plan) {
  const auto* kernel = reinterpret_cast<const void*>(short_k_kernel_for(copies, plan));
  const int stages = plan.sliced() ? kSlicedStages : 2;
  cudalabs::allow_dynamic_shared_memory(kernel, short_k_shared_bytes(stages));
  return {kernel, cudalabs::checked_grid(short_k_blocks(shape), plan.slices, 1, "lab11 short_k"),
          dim3(kShortKThreads), static_cast<std::size_t>(short_k_shared_bytes(stages))};
}

// Runs `plan` (plan_short_k) on args; sliced, as clusters of plan.slices blocks along gridDim.y.
void run_short_k(const Bf16GemmArgs& args, const ShortKPlan& plan, cudaStream_t stream) {
  const ShortKCopies copies = short_k_copies(args);
  const KernelLaunch launch = short_k_launch(args.shape(), copies, plan);
  const ShortKKernel kernel = short_k_kernel_for(copies, plan);
  if (!plan.sliced()) {
    kernel<<<launch.grid, launch.block, launch.dynamic_shared_bytes, stream>>>(args, plan.slice_k);
    CUDA_CHECK_LAUNCH("lab11 short_k_mma_kernel");
    return;
  }
  if (plan.slices > 8)
    CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                    cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(plan.slices);
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = launch.grid;
  config.blockDim = launch.block;
  config.dynamicSmemBytes = launch.dynamic_shared_bytes;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args, plan.slice_k));
  CUDA_CHECK_LAUNCH("lab11 short_k_mma_kernel (sliced)");
}

// The short-K kernel's plan for args on this GPU.
const ShortKPlan& planned_short_k(const Bf16GemmArgs& args) {
  return planned_short_k(args.shape(), short_k_copies(args));
}

// ---- best: the fastest rung this GPU allows ----

bool hopper_rungs_run_here() {
  return specialized_unavailable<256>().empty();
}

// best runs wherever mma_swizzled does.
std::string best_unavailable() {
  return MmaSwizzledRung::unavailable();
}

// plan_best for the shape, remembered (common/remembered_plan.h).
const SpecializedPlan& planned_best(const GemmShape& shape) {
  return cudalabs::remembered_plan<SpecializedPlan>(shape, &plan_best);
}

// What run.template operator()<kWidth, kRows>() returns for the tile of `plan`.
template <class Run>
decltype(auto) on_plan_tile(const SpecializedPlan& plan, Run&& run) {
  if (plan.rows == 64)
    return plan.width == 64 ? run.template operator()<64, 64>()
                            : run.template operator()<128, 64>();
  switch (plan.width) {
    case 64:
      return run.template operator()<64, 128>();
    case 128:
      return run.template operator()<128, 128>();
    default:
      return run.template operator()<256, 128>();
  }
}

// What launch_best runs for `shape` with every row of A, B and C 16-byte aligned.
KernelLaunch describe_best(const GemmShape& shape) {
  if (!hopper_rungs_run_here()) return MmaSwizzledRung::describe(shape);
  const SpecializedPlan& plan = planned_best(shape);
  const FewColumnsLoads aligned = few_columns_loads(shape, false, false);
  if (few_columns_fit(shape) &&
      few_columns_pays(shape, plan, planned_few_columns(shape, aligned), false, false))
    return few_columns_launch(shape, planned_few_columns(shape, aligned), 16);
  const int sms = cudalabs::multiprocessor_count();
  if (few_rows_fit(shape) &&
      few_rows_pays(shape, plan, planned_few_rows(shape), planned_short_k(shape, {}), {}, 16, sms))
    return few_rows_launch(shape, planned_few_rows(shape));
  if (short_k_pays(shape, plan, planned_short_k(shape, {}), {}, 16, sms))
    return short_k_launch(shape, {}, planned_short_k(shape, {}));
  return on_plan_tile(plan, [&]<int kWidth, int kRows>() {
    return specialized_launch<kWidth, kRows>(
        specialized_units<kWidth, kRows>(shape, plan.slices, plan.whole_tiles));
  });
}

// What `best` runs on args where neither the few-columns nor the few-rows kernel pays: a short K,
// where C's writes are most of the work, or a small C over a long K cut into a cluster's slices,
// on the short-K kernel at any alignment where it pays; else `plan` on TMA after the copies of
// operands TMA cannot read, unless one launch of the wgmma rung is done sooner.
void run_short_k_or_tiles(const Bf16GemmArgs& args, const SpecializedPlan& plan,
                          cudaStream_t stream) {
  const bool copy_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool copy_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  const int sms = cudalabs::multiprocessor_count();
  const ShortKPlan& short_k = planned_short_k(args);
  if (short_k_pays(args.shape(), plan, short_k, short_k_copies(args), c_store_bytes(args), sms))
    return run_short_k(args, short_k, stream);
  if (one_launch_rung_pays(args.shape(), plan, copy_a, copy_b, sms))
    return WgmmaRung::launch(args, stream);
  // A and B onto 128-byte lines where they are copied anyway, or where the copy pays (best_plan.h)
  const OnLines lines{copy_a || copy_a_to_lines_pays(args.shape(), plan),
                      copy_b || copy_b_to_lines_pays(args.shape(), plan)};
  on_plan_tile(plan, [&]<int kWidth, int kRows>() {
    run_specialized<kWidth, kRows>(args, plan.slices, stream, lines, plan.whole_tiles);
  });
}

void launch_best(const Bf16GemmArgs& args, cudaStream_t stream) {
  cudalabs::validate_gemm_args(args, "lab11 best");  // bad arguments first, before the device
  if (!hopper_rungs_run_here()) return MmaSwizzledRung::launch(args, stream);
  const SpecializedPlan plan = planned_best(args.shape());
  // Operands TMA cannot read: the few-columns kernel loads them narrower, TMA needs them copied
  const bool copy_a = !cudalabs::rows_allow_16_byte_loads(args.a, args.lda);
  const bool copy_b = !cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
  // A C of a few columns: A read once in place, at any alignment (few_columns.cuh)
  if (few_columns_fit(args.shape())) {
    const FewColumnsPlan& few =
        planned_few_columns(args.shape(), few_columns_loads(args.shape(), copy_a, copy_b));
    if (few_columns_pays(args.shape(), plan, few, copy_a, copy_b))
      return run_few_columns(args, few, stream);
  }
  // A C of a few rows: B read once in place, at any alignment (few_rows.cuh)
  const int sms = cudalabs::multiprocessor_count();
  if (few_rows_fit(args.shape()) &&
      few_rows_pays(args.shape(), plan, planned_few_rows(args.shape()), planned_short_k(args),
                    short_k_copies(args), c_store_bytes(args), sms))
    return run_few_rows(args, planned_few_rows(args.shape()), stream);
  run_short_k_or_tiles(args, plan, stream);
}

const TensorCoreVariant kVariants[] = {
    {"wmma_global", "WMMA 16x16x16 fragments loaded straight from global memory",
     &launch_wmma_global, &describe_wmma_global, &wmma_global_unavailable},
    {"wmma_pipelined", "WMMA on 128x128x32 shared tiles, 3 cp.async stages",
     &WmmaPipelinedRung::launch, &WmmaPipelinedRung::describe, &WmmaPipelinedRung::unavailable},
    {"mma_swizzled", "mma.sync m16n8k16 + ldmatrix from 128-byte-swizzled tiles, 128x128x64",
     &MmaSwizzledRung::launch, &MmaSwizzledRung::describe, &MmaSwizzledRung::unavailable},
    {"wgmma", "Hopper wgmma m64n128k16 from shared-memory descriptors, one warpgroup per 64x128",
     &WgmmaRung::launch, &WgmmaRung::describe, &WgmmaRung::unavailable},
    {"tma_wgmma", "tiles brought by TMA on an mbarrier pipeline, 128x128 per warpgroup",
     &launch_tma, &describe_tma, &tma_unavailable},
    {"warp_specialized",
     "producer + 2 consumer warpgroups, setmaxnreg, persistent 128x256 tiles in grouped order",
     &launch_specialized<256>, &describe_specialized<256>, &specialized_unavailable<256>},
    {"warp_specialized_128",
     "the same with 128x128 tiles: twice the tiles, for grids that leave SMs idle",
     &launch_specialized<128>, &describe_specialized<128>, &specialized_unavailable<128>},
    {"warp_specialized_64x128",
     "one consumer warpgroup on 64x128 tiles, 8 stages: a tile for a C of few rows",
     &launch_specialized<128, 64>, &describe_specialized<128, 64>,
     &specialized_unavailable<128, 64>},
    {"best",
     "the warp-specialized tile width, and slices of K, that leave the fewest SMs idle "
     "(mma_swizzled elsewhere)",
     &launch_best, &describe_best, &best_unavailable},
};

const Fp16TensorCoreVariant kFp16Variants[] = {
    {"wmma_fp16", "step 1 with FP16 fragments: WMMA 16x16x16 straight from global memory",
     &launch_wmma_fp16, &describe_wmma_fp16, &wmma_fp16_unavailable},
    {"mma_fp16",
     "step 3 with FP16: mma.sync + ldmatrix from swizzled tiles, 128x64x64, 2 stages (fits 7.5)",
     &MmaFp16Rung::launch, &MmaFp16Rung::describe, &MmaFp16Rung::unavailable},
};

}  // namespace

std::span<const TensorCoreVariant> variants() {
  return kVariants;
}

std::span<const Fp16TensorCoreVariant> fp16_variants() {
  return kFp16Variants;
}

void best_gemm(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream) {
  launch_best(args, stream);
}

cudalabs::KernelLaunch describe_slice_sums(const cudalabs::GemmShape& shape) {
  cudalabs::validate_gemm_shape(shape, "lab11 slice sums");
  return cudalabs::slice_sums_launch(shape, cudalabs::EverySlice{2, shape.m, shape.n, 1});
}

}  // namespace lab11
