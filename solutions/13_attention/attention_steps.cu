// Lab 13 solution: the steps past the ladder (attention_steps.h), launched as the ladder's fused
// rungs are (fused_launch.cuh's FusedRung). A translation unit of its own, beside kernels.cu: the
// steps are not what a student hands in, and kernels.cu (the solution as one file) stays the
// ladder alone.
#include "attention_steps.h"

#include "attention_kernels.cuh"
#include "flash_mma_rows_kernel.cuh"
#include "flash_wgmma_kernel.cuh"
#include "flash_wgmma_overlap_kernel.cuh"
#include "flash_wgmma_ws_kernel.cuh"
#include "fused_launch.cuh"
#include "lab.h"
#include "tiles.h"

#include "common/tensor_map_encoder.h"

#include <algorithm>
#include <string>

namespace lab13 {
namespace {

constexpr char kFlashMmaEx2[] = "lab13 flash_mma_ex2";
constexpr char kFlashMmaRows[] = "lab13 flash_mma_rows";
constexpr char kFlashMmaPrefetch[] = "lab13 flash_mma_prefetch";
constexpr char kFlashWgmma2Cta[] = "lab13 flash_wgmma_2cta";
constexpr char kFlashWgmmaOverlap[] = "lab13 flash_wgmma_overlap";
constexpr char kFlashWgmmaOverlap128[] = "lab13 flash_wgmma_overlap_128";
constexpr char kFlashWgmmaWs[] = "lab13 flash_wgmma_ws";
constexpr char kFlashWgmmaWsPingPong[] = "lab13 flash_wgmma_ws_pingpong";
constexpr char kFlashWgmmaWsTma[] = "lab13 flash_wgmma_ws_tma";
constexpr char kFlashWgmmaWsLpt[] = "lab13 flash_wgmma_ws_lpt";
constexpr char kFlashMmaLazy[] = "lab13 flash_mma_lazy";
constexpr char kFlashMmaCopies[] = "lab13 flash_mma_copies";
constexpr char kFlashMmaChains[] = "lab13 flash_mma_chains";
constexpr char kFlashWgmmaWsLazy[] = "lab13 flash_wgmma_ws_lazy";
constexpr char kFlashWgmmaWs176[] = "lab13 flash_wgmma_ws_176";
constexpr char kFlashWgmmaWsChains[] = "lab13 flash_wgmma_ws_chains";
constexpr char kFlashWgmmaWsTiles[] = "lab13 flash_wgmma_ws_tiles";
constexpr char kFlashWgmmaWsPersistent[] = "lab13 flash_wgmma_ws_persistent";
constexpr char kFlashWgmmaWsResident[] = "lab13 flash_wgmma_ws_resident";
constexpr char kFlashWgmmaWsFma[] = "lab13 flash_wgmma_ws_fma";
using FlashMmaEx2 = FusedRung<kFlashMmaEx2, MmaRowsTile<1>, &flash_mma_rows_kernel<64, 1>,
                              &flash_mma_rows_kernel<128, 1>, 80>;
// flash_mma_rows and the steps past it (32 queries a warp): kPrefetch, fused_softmax.cuh's kSoftmax
// flags and kUnrolledCopies as flash_mma_rows_kernel takes them; one kernel for each head_dim.
template <const char* kWho, bool kPrefetch, int kSoftmax, bool kUnrolledCopies>
using RowsRung =
    FusedRung<kWho, MmaRowsTile<2>,
              &flash_mma_rows_kernel<64, 2, kPrefetch, kSoftmax, kUnrolledCopies>,
              &flash_mma_rows_kernel<128, 2, kPrefetch, kSoftmax, kUnrolledCopies>, 80>;
constexpr int kLeanSoftmax = kLazyRescale | kShortChains;
using FlashMmaRows = RowsRung<kFlashMmaRows, false, 0, false>;
using FlashMmaPrefetch = RowsRung<kFlashMmaPrefetch, true, 0, false>;
using FlashMmaLazy = RowsRung<kFlashMmaLazy, false, kLazyRescale, false>;
using FlashMmaCopies = RowsRung<kFlashMmaCopies, false, kLazyRescale, true>;
using FlashMmaChains = RowsRung<kFlashMmaChains, false, kLeanSoftmax, true>;
using FlashWgmma2Cta = FusedRung<kFlashWgmma2Cta, WgmmaTile, &flash_wgmma_kernel<64, 2>,
                                 &flash_wgmma_kernel<128, 2>, 90>;
using FlashWgmmaOverlap =
    FusedRung<kFlashWgmmaOverlap, WgmmaKeysTile<64>, &flash_wgmma_overlap_kernel<64, 64>,
              &flash_wgmma_overlap_kernel<128, 64>, 90>;
using FlashWgmmaOverlap128 =
    FusedRung<kFlashWgmmaOverlap128, WgmmaKeysTile<128>, &flash_wgmma_overlap_kernel<64, 128>,
              &flash_wgmma_overlap_kernel<128, 128>, 90>;

// Q, K or V (`tensor`, sequence rows of head_dim a head, heads_total heads) as the 3-D tensor map
// flash_wgmma_ws_tma reads: boxes of 64 columns (128 bytes, the 128-byte swizzle) x `box_rows`
// rows (a Q tile's or a K and V tile's) x 1 head, zeros outside the tensor.
CUtensorMap attention_tensor_map(const __nv_bfloat16* tensor, const AttentionShape& shape,
                                 int box_rows, const char* who) {
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(shape.head_dim) * 2;
  const cuuint64_t size[3] = {static_cast<cuuint64_t>(shape.head_dim),
                              static_cast<cuuint64_t>(shape.sequence),
                              static_cast<cuuint64_t>(shape.heads_total())};
  const cuuint64_t strides[2] = {row_bytes, row_bytes * shape.sequence};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  CUtensorMap map{};
  const CUresult result = cudalabs::tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<__nv_bfloat16*>(tensor), size, strides,
      box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(who) + ": cuTensorMapEncodeTiled refused a map of " +
                             std::to_string(shape.sequence) + " x " +
                             std::to_string(shape.head_dim) + ": CUresult " +
                             std::to_string(static_cast<int>(result)));
  }
  return map;
}

// flash_wgmma_ws's rungs (key tiles of kKeys): FusedRung's describe and checks, the launch passing
// the tensor maps (built only when kTma) beside the arguments. kPersistent: a block an SM (at most
// one a query tile), each walking the query tiles from blockIdx.x on, gridDim.x apart, with the Q
// tiles ws_q_tiles gives it.
template <const char* kWho, auto kKernel64, auto kKernel128, bool kTma, int kKeys = 128,
          bool kPersistent = false>
struct WsRung : FusedRung<kWho, WgmmaWsTile<kKeys, ws_q_tiles(kKeys, kPersistent)>, kKernel64,
                          kKernel128, 90> {
  using Base = FusedRung<kWho, WgmmaWsTile<kKeys, ws_q_tiles(kKeys, kPersistent)>, kKernel64,
                         kKernel128, 90>;
  static KernelLaunch describe(const AttentionShape& shape) {
    KernelLaunch c = Base::describe(shape);
    if constexpr (kPersistent) {
      const long long items = static_cast<long long>(c.grid.x) * c.grid.y;
      c.grid =
          dim3(static_cast<unsigned>(std::min<long long>(items, cudalabs::multiprocessor_count())));
    }
    return c;
  }
  static void launch(const AttentionArgs& args, cudaStream_t stream) {
    validate_attention(args, 0, kWho);
    const KernelLaunch c = describe(args.shape);
    require_capability(90, c.kernel, kWho);
    AttentionTensorMaps maps{};
    if constexpr (kTma) {
      maps.q = attention_tensor_map(args.q, args.shape, WgmmaTile::kQueries, kWho);
      maps.k = attention_tensor_map(args.k, args.shape, kKeys, kWho);
      maps.v = attention_tensor_map(args.v, args.shape, kKeys, kWho);
    }
    const auto run = [&](auto kernel) {
      allow_shared(kernel, c.dynamic_shared_bytes);
      kernel<<<c.grid, c.block, c.dynamic_shared_bytes, stream>>>(args, maps);
    };
    if (args.shape.head_dim == 64)
      run(kKernel64);
    else
      run(kKernel128);
    CUDA_CHECK_LAUNCH(kWho);
  }
};
using FlashWgmmaWs =
    WsRung<kFlashWgmmaWs, &flash_wgmma_ws_kernel<64, 128>, &flash_wgmma_ws_kernel<128, 128>, false>;
using FlashWgmmaWsPingPong = WsRung<kFlashWgmmaWsPingPong, &flash_wgmma_ws_kernel<64, 128, true>,
                                    &flash_wgmma_ws_kernel<128, 128, true>, false>;
using FlashWgmmaWsTma = WsRung<kFlashWgmmaWsTma, &flash_wgmma_ws_kernel<64, 128, true, true>,
                               &flash_wgmma_ws_kernel<128, 128, true, true>, true>;
// flash_wgmma_ws_lpt and the steps past it (ping-pong, TMA copies, heaviest first):
// fused_softmax.cuh's kSoftmax flags, key tiles of kKeys, kPersistent blocks; one kernel for each
// head_dim.
template <const char* kWho, int kSoftmax, int kKeys = 128, bool kPersistent = false>
using LptRung =
    WsRung<kWho, &flash_wgmma_ws_kernel<64, kKeys, true, true, true, kSoftmax, kPersistent>,
           &flash_wgmma_ws_kernel<128, kKeys, true, true, true, kSoftmax, kPersistent>, true, kKeys,
           kPersistent>;
using FlashWgmmaWsLpt = LptRung<kFlashWgmmaWsLpt, 0>;
using FlashWgmmaWsLazy = LptRung<kFlashWgmmaWsLazy, kLazyRescale>;
using FlashWgmmaWs176 = LptRung<kFlashWgmmaWs176, kLazyRescale, 176>;
using FlashWgmmaWsChains = LptRung<kFlashWgmmaWsChains, kLeanSoftmax>;
using FlashWgmmaWsPersistent = LptRung<kFlashWgmmaWsPersistent, kLeanSoftmax, 128, true>;

// A step whose kernel depends on the mask: Unmasked's without it, Masked's under it.
template <class Unmasked, class Masked>
struct ByMaskRung {
  static KernelLaunch describe(const AttentionShape& shape) {
    return shape.causal ? Masked::describe(shape) : Unmasked::describe(shape);
  }
  static std::string unavailable() {
    const std::string unmasked = Unmasked::unavailable();
    return unmasked.empty() ? Masked::unavailable() : unmasked;
  }
  static void launch(const AttentionArgs& args, cudaStream_t stream) {
    if (args.shape.causal)
      Masked::launch(args, stream);
    else
      Unmasked::launch(args, stream);
  }
};
using FlashWgmmaWsTiles = ByMaskRung<LptRung<kFlashWgmmaWsTiles, kLeanSoftmax, 176>,
                                     LptRung<kFlashWgmmaWsTiles, kLeanSoftmax>>;
using FlashWgmmaWsResident = ByMaskRung<LptRung<kFlashWgmmaWsResident, kLeanSoftmax, 176, true>,
                                        LptRung<kFlashWgmmaWsResident, kLeanSoftmax>>;
constexpr int kFmaSoftmax = kLeanSoftmax | kFmaExponentials;
using FlashWgmmaWsFma = ByMaskRung<LptRung<kFlashWgmmaWsFma, kFmaSoftmax, 176, true>,
                                   LptRung<kFlashWgmmaWsFma, kFmaSoftmax>>;

template <class Rung>
constexpr AttentionVariant step_variant(const char* name, const char* summary) {
  return {name, summary, &Rung::launch, &Rung::describe, &no_workspace, &Rung::unavailable};
}

constexpr AttentionStep kAttentionSteps[] = {
    {step_variant<FlashMmaEx2>("flash_mma_ex2",
                               "flash_mma, each exponent one FMA (the scale folded in) and "
                               "ex2.approx.ftz"),
     "flash_mma"},
    {step_variant<FlashMmaRows>("flash_mma_rows",
                                "flash_mma_ex2 with 32 queries a warp, 128 a block: each K and V "
                                "fragment feeds two mma.sync"),
     "flash_mma_ex2"},
    {step_variant<FlashMmaPrefetch>("flash_mma_prefetch",
                                    "flash_mma_rows, each step's Q and first K fragments loaded "
                                    "during the step before (FlashAttention-2's gemm)"),
     "flash_mma_rows"},
    {step_variant<FlashMmaLazy>("flash_mma_lazy",
                                "flash_mma_rows, the maximum allowed to stay behind by up to 2^8 "
                                "so that the outputs' rescaling is mostly skipped"),
     "flash_mma_rows"},
    {step_variant<FlashMmaCopies>("flash_mma_copies",
                                  "flash_mma_lazy, each thread's K and V copies at offsets "
                                  "computed once (16 cp.async a tile, no loop that divides)"),
     "flash_mma_lazy"},
    {step_variant<FlashMmaChains>("flash_mma_chains",
                                  "flash_mma_copies, the softmax's maximum as a tree, its sum in "
                                  "four running sums, the mask behind a branch"),
     "flash_mma_copies"},
    {step_variant<FlashWgmma2Cta>("flash_wgmma_2cta",
                                  "flash_wgmma at 128 registers, two blocks an SM: one's softmax "
                                  "under the other's wgmma"),
     "flash_wgmma"},
    {step_variant<FlashWgmmaOverlap>("flash_wgmma_overlap",
                                     "flash_wgmma, each tile's softmax while the tensor cores run "
                                     "the last P V (FlashAttention-3's overlap)"),
     "flash_wgmma"},
    {step_variant<FlashWgmmaOverlap128>("flash_wgmma_overlap_128",
                                        "flash_wgmma_overlap with key tiles of 128: S as "
                                        "m64n128k16, half the iterations"),
     "flash_wgmma_overlap"},
    {step_variant<FlashWgmmaWs>("flash_wgmma_ws",
                                "flash_wgmma_overlap_128 warp-specialised: a producer warpgroup "
                                "copies, two consumers compute, on mbarriers"),
     "flash_wgmma_overlap_128"},
    {step_variant<FlashWgmmaWsPingPong>("flash_wgmma_ws_pingpong",
                                        "flash_wgmma_ws, the consumers' wgmma in turns (named "
                                        "barriers): one's softmax under the other's products"),
     "flash_wgmma_ws"},
    {step_variant<FlashWgmmaWsTma>("flash_wgmma_ws_tma",
                                   "flash_wgmma_ws_pingpong, the producer one thread issuing TMA "
                                   "copies (tensor maps) instead of 128 issuing cp.async"),
     "flash_wgmma_ws_pingpong"},
    {step_variant<FlashWgmmaWsLpt>("flash_wgmma_ws_lpt",
                                   "flash_wgmma_ws_tma, causal blocks longest first across the "
                                   "heads of an L2-sized section (FlashAttention-3's scheduler)"),
     "flash_wgmma_ws_tma"},
    {step_variant<FlashWgmmaWsLazy>("flash_wgmma_ws_lazy",
                                    "flash_wgmma_ws_lpt, the maximum allowed to stay behind by up "
                                    "to 2^8 so that the outputs' rescaling is mostly skipped"),
     "flash_wgmma_ws_lpt"},
    {step_variant<FlashWgmmaWs176>("flash_wgmma_ws_176",
                                   "flash_wgmma_ws_lazy with key tiles of 176 "
                                   "(FlashAttention-3's at head_dim 128 without a mask)"),
     "flash_wgmma_ws_lazy"},
    {step_variant<FlashWgmmaWsChains>("flash_wgmma_ws_chains",
                                      "flash_wgmma_ws_lazy, the softmax's maximum as a tree, its "
                                      "sum in four running sums, the mask behind a branch"),
     "flash_wgmma_ws_lazy"},
    {step_variant<FlashWgmmaWsTiles>("flash_wgmma_ws_tiles",
                                     "flash_wgmma_ws_chains with FlashAttention-3's key tiles at "
                                     "head_dim 128: 176 without the mask, 128 under it"),
     "flash_wgmma_ws_chains"},
    {step_variant<FlashWgmmaWsPersistent>("flash_wgmma_ws_persistent",
                                          "flash_wgmma_ws_chains persistent: a block an SM walking "
                                          "the query tiles, the next tile's Q and K loading "
                                          "while this one ends"),
     "flash_wgmma_ws_chains"},
    {step_variant<FlashWgmmaWsResident>(
         "flash_wgmma_ws_resident",
         "flash_wgmma_ws_tiles without the mask persistent: a block "
         "an SM at 176 keys, its one Q tile refilled once the last S "
         "has landed; under the mask flash_wgmma_ws_tiles's"),
     "flash_wgmma_ws_tiles"},
    {step_variant<FlashWgmmaWsFma>("flash_wgmma_ws_fma",
                                   "flash_wgmma_ws_resident with one exponential in four on the "
                                   "FMA units (a polynomial) instead of the multi-function unit"),
     "flash_wgmma_ws_resident"},
};

}  // namespace

std::span<const AttentionStep> attention_steps() {
  return kAttentionSteps;
}

}  // namespace lab13
