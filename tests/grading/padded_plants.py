"""Plants of issue 52's kinds, each in more than one spelling: points taken without the work a problem
needs. Each must score 0 for the variant or the lab, with the rule that catches it named, while the
solutions and the student versions keep theirs.

  padding      instructions that do no work, to meet a technique rule  -> ratios to the useful work, both bounds
  shape        the technique only where the code can tell it is measured -> a probe drawn at grading time
  skipping     a timed sum that adds less than it must                  -> an exact timed check
  size         an out-of-bounds read only at large sizes                -> memcheck on a call at the timed size
  library      the lesson done by a header library                      -> the toolkit's headers are an allowlist
  copies       a copy in disguise (see planted_class.py)                 -> similarity on what the compiler sees
"""
from __future__ import annotations

from cudalabs.grading.solution_file import single_file
from cudalabs.paths import REPO

from plants import replace_once

LAB05_KERNEL_START = (
    "template <int BM, int BN, int BK, int TM, int TN>\n__global__ void __launch_bounds__((BM / TM) * (BN / TN))\n"
    "    register_tiled_kernel(cudalabs::GemmArgs args) {\n"
)
LAB01_LOOP = "  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];\n"
LAB02_KERNEL = (
    "template <bool kThreadXWalksRows, int kPadding>\n__global__ void tiled_gemm_kernel(cudalabs::GemmArgs args) {\n"
)
LAB02_END = "}\n// [walkthrough]\n\n}  // namespace\n}  // namespace lab02\n"
LAB12_ATOMIC = (
    "__global__ void atomic_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {\n"
    "  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
    "  if (i < count) atomicAdd(sum, input[i]);\n"
)
LAB12_TREE_END = "  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);\n"


def _lab05_dot_products(pad: str = "", only_unless: str = "") -> str:
    """Lab 05 without register tiles: a dot product from global memory per element of the block's
    patch; `pad` runs after each (instructions that do no work); `only_unless`: the condition under
    which the real kernel runs instead (the shape the code thinks is profiled)."""
    guard = f"  if (!({only_unless})) {{\n" if only_unless else "  {\n"
    return replace_once(
        single_file(REPO, "05_register_tiling"),
        LAB05_KERNEL_START,
        LAB05_KERNEL_START + guard + "    // planted: no tiles, no registers reused\n"
        "    const int first_row = blockIdx.y * BM, first_col = blockIdx.x * BN;\n"
        "    for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {\n"
        "      const int row = first_row + e / BN, col = first_col + e % BN;\n"
        "      if (row >= args.m || col >= args.n) continue;\n"
        "      float sum = 0.0f;\n"
        "      for (int p = 0; p < args.k; ++p) sum = fmaf(args.a[row * args.lda + p], args.b[p * args.ldb + col], sum);\n"
        + pad
        + "      cudalabs::store_gemm_result(args.c + row * args.ldc + col, sum, args.alpha, args.beta);\n"
        "    }\n"
        "    return;\n"
        "  }\n",
        "lab05 dot products",
    )


# Ten FFMAs that do no work per multiply-add, kept by a result compared with a value it never takes.
_PAD_FFMA_C = (
    "      float pad = sum;  // planted: FFMA that does no work\n"
    "      for (int q = 0; q < 10 * args.k; ++q) pad = fmaf(pad, 0.9990234375f, 0.0009765625f);\n"
    "      if (pad == -1.0e30f) sum += 1.0f;\n"
)
_PAD_FFMA_PTX = (
    "      float pad = sum;  // planted: FFMA that does no work, as PTX\n"
    "      for (int q = 0; q < 10 * args.k; ++q)\n"
    '        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(pad) : "f"(0.9990234375f), "f"(0.0009765625f));\n'
    "      if (pad == -1.0e30f) sum += 1.0f;\n"
)


def _lab02_untiled(shared_load: str) -> str:
    """Lab 02's three variants without tiles: lab 01's coalesced dot products, plus `shared_load` (a
    shared-memory load of a zero) every step."""
    source = single_file(REPO, "02_smem_tiling")
    start = source.index(LAB02_KERNEL) + len(LAB02_KERNEL)
    end = source.index(LAB02_END, start)
    body = (
        "  // planted: no tile; a shared load of a zero each step, to look like one\n"
        "  __shared__ float planted_zero[kTile];\n"
        "  if (threadIdx.y == 0) planted_zero[threadIdx.x] = 0.0f;\n"
        "  __syncthreads();\n"
        "  const int row = blockIdx.y * kTile + threadIdx.y;\n"
        "  const int col = blockIdx.x * kTile + threadIdx.x;\n"
        "  if (row >= args.m || col >= args.n) return;\n"
        "  float acc = 0.0f, zero = 0.0f;\n"
        "  for (int p = 0; p < args.k; ++p) {\n"
        "    acc += args.a[row * args.lda + p] * args.b[p * args.ldb + col];\n" + shared_load + "  }\n"
        "  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc + zero, args.alpha, args.beta);\n"
    )
    return source[:start] + body + source[end:]


_VOLATILE_LOAD = "    zero += static_cast<volatile float*>(planted_zero)[p % kTile];\n"
_PTX_LOAD = (
    "    float loaded;\n"
    '    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(loaded)'
    ' : "r"(static_cast<unsigned>(__cvta_generic_to_shared(planted_zero + p % kTile))));\n'
    "    zero += loaded;\n"
)


def _lab02_layouts_only_at(condition: str) -> str:
    """Lab 02's three variants one kernel (coalesced, padded) except where `condition` holds."""
    source = single_file(REPO, "02_smem_tiling")
    start = source.index(LAB02_KERNEL) + len(LAB02_KERNEL)
    end = source.index(LAB02_END, start)
    body = (
        f"  const bool planted_probe = {condition};  // planted: the variants differ only here\n"
        "  const bool walks_rows = planted_probe ? kThreadXWalksRows : false;\n"
        "  const int stride = planted_probe ? kTile + kPadding : kTile + 1;\n"
        "  __shared__ float a_tile[kTile * (kTile + 1)];\n"
        "  __shared__ float b_tile[kTile * (kTile + 1)];\n"
        "  const int local_row = walks_rows ? threadIdx.x : threadIdx.y;\n"
        "  const int local_col = walks_rows ? threadIdx.y : threadIdx.x;\n"
        "  const int row = blockIdx.y * kTile + local_row;\n"
        "  const int col = blockIdx.x * kTile + local_col;\n"
        "  float acc = 0.0f;\n"
        "  for (int k0 = 0; k0 < args.k; k0 += kTile) {\n"
        "    const int a_col = k0 + local_col, b_row = k0 + local_row;\n"
        "    a_tile[local_row * stride + local_col] =\n"
        "        (row < args.m && a_col < args.k) ? args.a[row * args.lda + a_col] : 0.0f;\n"
        "    b_tile[local_row * stride + local_col] =\n"
        "        (b_row < args.k && col < args.n) ? args.b[b_row * args.ldb + col] : 0.0f;\n"
        "    __syncthreads();\n"
        "    for (int p = 0; p < kTile; ++p) acc += a_tile[local_row * stride + p] * b_tile[p * stride + local_col];\n"
        "    __syncthreads();\n"
        "  }\n"
        "  if (row < args.m && col < args.n)\n"
        "    cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n"
    )
    return source[:start] + body + source[end:]


LAB01_BODY = (
    "  const int row = kThreadXWalksColumns ? y : x;\n  const int col = kThreadXWalksColumns ? x : y;\n"
    "  if (row >= args.m || col >= args.n) return;  // the grid is rounded up to whole blocks\n\n"
    "  const float* a_row = args.a + row * args.lda;\n  const float* b_col = args.b + col;\n"
    "  float acc = 0.0f;\n" + LAB01_LOOP
)


def _lab01_strided_with_wide_dummies() -> str:
    """naive_coalesced with the strided mapping (threadIdx.x down a column of C, over whatever grid was
    launched, every element once: the results stay right), plus two coalesced 128-byte loads a step that
    lower the sectors per request (the old rule took the average: 8 or fewer)."""
    return replace_once(
        single_file(REPO, "01_naive_gemm"),
        LAB01_BODY + "  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n",
        "  // planted: the strided mapping under both names, and 32 consecutive floats (128 bytes a warp)\n"
        "  // of one row of A and of B's row p each step\n"
        "  const int lane = threadIdx.x % 32;\n"
        "  const volatile float* planted_a = args.a + (static_cast<long long>(blockIdx.x) * blockDim.x % args.m) * args.lda;\n"
        "  const volatile float* planted_b = args.b;\n"
        "  for (int row = x; row < args.m; row += gridDim.x * blockDim.x)\n"
        "    for (int col = y; col < args.n; col += gridDim.y * blockDim.y) {\n"
        "      const float* a_row = args.a + row * args.lda;\n"
        "      const float* b_col = args.b + col;\n"
        "      float acc = 0.0f, pad = 0.0f;\n"
        "      for (int p = 0; p < args.k; ++p) {\n"
        "        acc += a_row[p] * b_col[p * args.ldb];\n"
        "        if (kThreadXWalksColumns) pad += planted_a[lane % args.k] + planted_b[p * args.ldb + lane % args.n];\n"
        "      }\n"
        "      if (pad == -1.0e30f) acc += 1.0f;\n"
        "      cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n"
        "    }\n",
        "lab01 strided with dummies",
    )


def _lab01_reads_past_b_when_large(condition: str) -> str:
    """Lab 01 reading B's row k (past its end) when `condition` holds (never on the tests' small shapes
    the sanitizers watched): the value read is only compared, so the result stays right whatever lies
    there (a guard's NaN included), and the read is out of bounds."""
    return replace_once(
        single_file(REPO, "01_naive_gemm"),
        LAB01_LOOP,
        LAB01_LOOP
        + f"  if (({condition}) && b_col[args.k * args.ldb] == -1.0e30f) acc += 1.0f;  // planted: B's row k\n",
        "lab01 large out of bounds",
    )


def _lab12_sum_atomic_one_element_later() -> str:
    """sum_atomic adds one element on every call after the first on the timed count (2^26)."""
    return replace_once(
        single_file(REPO, "12_reduce_scan_histogram"),
        LAB12_ATOMIC,
        "__device__ unsigned planted_atomic_calls;  // planted\n"
        "__global__ void atomic_sum_kernel(const float* __restrict__ input, std::size_t count, float* sum) {\n"
        "  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
        "  __shared__ bool one_only;  // planted: after the first timed call, one element\n"
        "  if (threadIdx.x == 0)\n"
        "    one_only = count == (std::size_t{1} << 26) &&\n"
        "               (blockIdx.x == 0 ? atomicAdd(&planted_atomic_calls, 1u) : planted_atomic_calls) >= 1;\n"
        "  __syncthreads();\n"
        "  if (one_only) {\n"
        "    if (i == 0) atomicAdd(sum, input[0]);\n"
        "    return;\n"
        "  }\n"
        "  if (i < count) atomicAdd(sum, input[i]);\n",
        "lab12 atomic",
    )


def _lab12_tree_skips_half_later() -> str:
    """sum_shared_tree leaves out every odd block's sum after the first call on the timed count."""
    source = replace_once(
        single_file(REPO, "12_reduce_scan_histogram"),
        "__global__ void __launch_bounds__(kThreadsPerBlock)\n    shared_tree_sum_kernel(",
        "__device__ unsigned planted_tree_calls;  // planted\n"
        "__global__ void __launch_bounds__(kThreadsPerBlock)\n    shared_tree_sum_kernel(",
        "lab12 tree counter",
    )
    return replace_once(
        source,
        LAB12_TREE_END,
        "  if (threadIdx.x == 0) {  // planted: after the first timed call, every odd block's sum left out\n"
        "    const bool later = count == (std::size_t{1} << 26) &&\n"
        "                       (blockIdx.x == 0 ? atomicAdd(&planted_tree_calls, 1u) : planted_tree_calls) >= 1;\n"
        "    if (!later || blockIdx.x % 2 == 0) atomicAdd(sum, partial[0]);\n"
        "  }\n",
        "lab12 tree",
    )


def _with_header_library(folder: str, includes: str, helper: str) -> str:
    """The solution of `folder` with a header library included and a helper using it (the lesson's
    operation done by the library: what the toolkit allowlist refuses, used or not)."""
    return includes + helper + single_file(REPO, folder)


_CG_REDUCE = (
    "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n",
    "namespace planted_cg = cooperative_groups;  // planted: the warp's sum by the library\n"
    "__device__ float planted_warp_sum(float value) {\n"
    "  const auto warp = planted_cg::tiled_partition<32>(planted_cg::this_thread_block());\n"
    "  return planted_cg::reduce(warp, value, planted_cg::plus<float>());\n"
    "}\n",
)
_CG_SCAN = (
    "#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n",
    "namespace planted_cg = cooperative_groups;  // planted: the warp's scan by the library\n"
    "__device__ unsigned planted_warp_scan(unsigned value) {\n"
    "  const auto warp = planted_cg::tiled_partition<32>(planted_cg::this_thread_block());\n"
    "  return planted_cg::inclusive_scan(warp, value);\n"
    "}\n",
)
_WMMA = (
    "#include <cuda_bf16.h>\n#include <mma.h>\n",
    "// planted: a tensor-core fragment from WMMA where the lesson is mma.sync\n"
    "__device__ void planted_wmma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {\n"
    "  using namespace nvcuda;\n"
    "  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;\n"
    "  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;\n"
    "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
    "  wmma::fill_fragment(fc, 0.0f);\n"
    "  wmma::load_matrix_sync(fa, a, 16);\n"
    "  wmma::load_matrix_sync(fb, b, 16);\n"
    "  wmma::mma_sync(fc, fa, fb, fc);\n"
    "  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);\n"
    "}\n",
)


def padded_plants(plant) -> list:
    """The plants, as planted.Plant(name, folder, source, expect)."""
    not_shown = "technique not shown"
    return [
        # Padding.
        plant("pads_ffma_lab05", "05_register_tiling", _lab05_dot_products(_PAD_FFMA_C), f"state:rt_2d={not_shown}"),
        plant(
            "pads_ffma_ptx_lab05", "05_register_tiling", _lab05_dot_products(_PAD_FFMA_PTX), f"state:rt_1d={not_shown}"
        ),
        plant(
            "untiled_shared_zero_lab02",
            "02_smem_tiling",
            _lab02_untiled(_VOLATILE_LOAD),
            f"state:tiled_coalesced={not_shown}",
        ),
        plant(
            "untiled_shared_ptx_lab02", "02_smem_tiling", _lab02_untiled(_PTX_LOAD), f"state:tiled_strided={not_shown}"
        ),
        plant(
            "strided_wide_dummies_lab01",
            "01_naive_gemm",
            _lab01_strided_with_wide_dummies(),
            f"state:naive_coalesced={not_shown}",
        ),
        # The shape the code can tell.
        plant(
            "tiles_only_at_old_probe_lab05",
            "05_register_tiling",
            _lab05_dot_products(only_unless="args.m == 512 && args.n == 512 && args.k == 256"),
            f"state:rt_2d={not_shown}",
        ),
        plant(
            "tiles_only_when_small_lab05",
            "05_register_tiling",
            _lab05_dot_products(only_unless="1LL * args.m * args.n * args.k <= (1LL << 26)"),
            f"state:rt_2d={not_shown}",
        ),
        plant(
            "layouts_only_at_old_probe_lab02",
            "02_smem_tiling",
            _lab02_layouts_only_at("args.m == 512 && args.n == 512 && args.k == 256"),
            "state:tiled_coalesced=not distinct",
        ),
        # Skipped work in the timed calls.
        plant(
            "sum_atomic_one_element_lab12",
            "12_reduce_scan_histogram",
            _lab12_sum_atomic_one_element_later(),
            "wrong in a timed run",
        ),
        plant(
            "sum_tree_half_lab12", "12_reduce_scan_histogram", _lab12_tree_skips_half_later(), "wrong in a timed run"
        ),
        # Out of bounds only at large sizes.
        plant(
            "reads_past_b_when_large_lab01",
            "01_naive_gemm",
            _lab01_reads_past_b_when_large("1LL * args.m * args.n * args.k >= (1LL << 20)"),
            "memcheck errors",
        ),
        plant(
            "reads_past_b_at_2048_lab01",
            "01_naive_gemm",
            _lab01_reads_past_b_when_large("args.m >= 2048 && args.n >= 2048"),
            "memcheck errors",
        ),
        # The lesson from a header library.
        plant(
            "cg_reduce_lab12",
            "12_reduce_scan_histogram",
            _with_header_library("12_reduce_scan_histogram", *_CG_REDUCE),
            "integrity rule broken",
        ),
        plant(
            "cg_scan_lab12",
            "12_reduce_scan_histogram",
            _with_header_library("12_reduce_scan_histogram", *_CG_SCAN),
            "integrity rule broken",
        ),
        plant("wmma_lab13", "13_attention", _with_header_library("13_attention", *_WMMA), "integrity rule broken"),
    ]
