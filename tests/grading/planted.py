"""Planted submissions for the grader's GPU self-test, one per way a submission could take points it
did not earn or do harm, each with what its report must say. Each starts from a solution as a student
hands it in (one kernels.cu) and names the text it replaces, failing loudly when the text is gone.

The ways in, as the grader sees them (the instructor's guide says which boundary stops each):
  includes     a file reached through the lab folder, a split or digraph directive   -> build or integrity
  names        a library call spelled by token pasting, a redefined suite name         -> integrity
  evidence     reports written by the process, unavailable reasons of its own          -> never read
  timing       a kernel that tells timed calls from checked ones                       -> checked timed runs
  technique    the lab's technique missing, kernels in another namespace               -> technique rules
  sandbox      system calls of its own                                                  -> integrity, sandbox
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cudalabs.grading.solution_file import single_file
from cudalabs.paths import REPO

from plants import replace_once

LAB05_KERNEL_START = "template <int BM, int BN, int BK, int TM, int TN>\n__global__ void __launch_bounds__((BM / TM) * (BN / TN))\n    register_tiled_kernel(cudalabs::GemmArgs args) {\n"


@dataclass(frozen=True)
class Plant:
    name: str
    folder: str
    source: str  # the whole kernels.cu
    expect: str  # what grade-report.json must show: a fatal class, or "state:<variant>=<state>", or "full marks"


def _lab05_naive() -> str:
    """Register tiling missing: every thread's patch computed by dot products from global memory."""
    source = single_file(REPO, "05_register_tiling")
    return replace_once(source, LAB05_KERNEL_START, LAB05_KERNEL_START + (
        "  // planted: no tiles, no registers reused: a dot product from global memory per element\n"
        "  const int first_row = blockIdx.y * BM, first_col = blockIdx.x * BN;\n"
        "  for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {\n"
        "    const int row = first_row + e / BN, col = first_col + e % BN;\n"
        "    if (row >= args.m || col >= args.n) continue;\n"
        "    float sum = 0.0f;\n"
        "    for (int p = 0; p < args.k; ++p) sum = fmaf(args.a[row * args.lda + p], args.b[p * args.ldb + col], sum);\n"
        "    cudalabs::store_gemm_result(args.c + row * args.ldc + col, sum, args.alpha, args.beta);\n"
        "  }\n"
        "  if (args.m >= 0) return;\n"), "lab05 naive")


def _lab05_tells_timed_calls() -> str:
    """A kernel that counts the calls on one large shape and skips its work from the third on: the
    grading tests make at most two, the timed runs many."""
    source = single_file(REPO, "05_register_tiling")
    source = replace_once(source, "namespace lab05 {\n", "namespace lab05 {\n__device__ unsigned planted_calls;  // planted\n",
                          "lab05 counter")
    return replace_once(source, LAB05_KERNEL_START, LAB05_KERNEL_START + (
        "  // planted: past the second call on a 2048-row problem with beta = 0, do nothing\n"
        "  __shared__ bool skip;\n"
        "  if (threadIdx.x == 0) {\n"
        "    skip = false;\n"
        "    if (args.m >= 2048 && args.beta == 0.0f) {\n"
        "      const bool first_block = blockIdx.x == 0 && blockIdx.y == 0;\n"
        "      const unsigned calls = first_block ? atomicAdd(&planted_calls, 1u) : planted_calls;\n"
        "      skip = calls >= 2;\n"
        "    }\n"
        "  }\n"
        "  __syncthreads();\n"
        "  if (skip) return;\n"), "lab05 timed")


def _lab01_reads_out_of_bounds() -> str:
    source = single_file(REPO, "01_naive_gemm")
    return replace_once(source, "  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];\n",
                        "  for (int p = 0; p <= args.k; ++p) acc += a_row[p] * b_col[p * args.ldb] * (p < args.k);\n",
                        "lab01 out of bounds")


def _lab05_token_pasted_cublas() -> str:
    source = single_file(REPO, "05_register_tiling")
    return source + ("\n#include <cublas_v2.h>\n#define PLANTED_CAT(a, b) a##b\nnamespace {\n"
                     "// planted: every launch could call cuBLAS through a name the source never spells\n"
                     "[[maybe_unused]] void planted_gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c) {\n"
                     "  const float one = 1.0f, zero = 0.0f;\n"
                     "  PLANTED_CAT(cublas, Sgemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);\n"
                     "}\n}  // namespace\n")


def _lab05_through_the_lab_folder() -> str:
    return ('#include "labs/05_register_tiling/../../solutions/05_register_tiling/kernels.cu"\n'
            + (REPO / "labs" / "05_register_tiling" / "kernels.cu").read_text())


def _lab05_raw_system_call() -> str:
    source = single_file(REPO, "05_register_tiling")
    return source + ("\nnamespace {\n// planted: a write to a file of the grader's, by a system call of its own\n"
                     "[[maybe_unused]] long planted_write(long fd, const char* text, long length) {\n"
                     "  long result;\n  asm volatile(\"syscall\" : \"=a\"(result) : \"a\"(1L), \"D\"(fd), \"S\"(text), \"d\"(length) "
                     ": \"rcx\", \"r11\", \"memory\");\n  return result;\n}\n}  // namespace\n")


def plants() -> list[Plant]:
    return [
        Plant("naive_lab05", "05_register_tiling", _lab05_naive(), "state:rt_2d=technique not shown"),
        Plant("tells_timed_calls", "05_register_tiling", _lab05_tells_timed_calls(), "wrong in a timed run"),
        Plant("reads_out_of_bounds", "01_naive_gemm", _lab01_reads_out_of_bounds(), "memcheck errors"),
        Plant("token_pasted_cublas", "05_register_tiling", _lab05_token_pasted_cublas(), "integrity rule broken"),
        Plant("through_the_lab_folder", "05_register_tiling", _lab05_through_the_lab_folder(), "does not compile"),
        Plant("raw_system_call", "05_register_tiling", _lab05_raw_system_call(), "integrity rule broken"),
    ]


def write_plants(folder: Path) -> list[Plant]:
    """Writes folder/<plant>/<lab folder>/kernels.cu for every plant."""
    written = plants()
    for plant in written:
        target = folder / plant.name / plant.folder / "kernels.cu"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(plant.source)
    return written
