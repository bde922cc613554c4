#!/usr/bin/env python3
"""A class of planted submissions for `make grade-class` (the GPU demonstration of the class grader):
the solutions, the skeletons, and one shortcut or fault per student, each with the reason the
gradebook must show for it.

  planted_class.py CLASS_DIR      writes CLASS_DIR/<student>/NN_name/kernels.cu, CLASS_DIR/expected.json
                                  and CLASS_DIR/rubric.json (the suite's, with a short time limit for
                                  lab 01, so that the planted hang costs a minute and a half, not seven)

Grading labs 01, 02, 03 and 10 covers every plant:
  make grade-class CLASS=DIR LABS=01,02,03,10 RUBRIC=DIR/rubric.json
  tests/grading/check_class.py build/grade-class/<DIR's name> DIR/expected.json

Every plant starts from a one-file solution (what a student hands in) and names the text it replaces;
if a solution changes so that the text is gone, writing the class fails loudly instead of planting
nothing.
"""
from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading.solution_file import handed_in, single_file  # noqa: E402
from planted import replace_once  # noqa: E402 - the plant grader_selftest uses, this folder

GEMM_LOOP = "  for (int p = 0; p < args.k; ++p) acc += a_row[p] * b_col[p * args.ldb];\n"


@dataclass(frozen=True)
class Planted:
    student: str
    folder: str  # the lab it plants into
    old: str
    new: str
    expect: str  # what the student's report must say for that lab (a fatal class or a failing test)


PLANTED = [
    # Integrity rules, caught before anything is built.
    Planted("cublas_call", "01_naive_gemm", '#include "lab.h"\n',
            '#include "lab.h"\n#include <cublas_v2.h>\n', "integrity rule broken"),
    Planted("includes_solution", "01_naive_gemm", '#include "lab.h"\n',
            '#include "lab.h"\n#include "solutions/01_naive_gemm/kernels.cu"\n', "integrity rule broken"),
    Planted("define_trick", "01_naive_gemm", '#include "lab.h"\n',
            '#include "lab.h"\n#undef CUDA_CHECK_LAUNCH\n#define CUDA_CHECK_LAUNCH(kernel) (void)0\n',
            "integrity rule broken"),
    # Faults the build, the tests or compute-sanitizer catch.
    Planted("no_compile", "01_naive_gemm", "  float acc = 0.0f;\n", "  float acc = 0.0f\n", "does not compile"),
    Planted("hangs", "01_naive_gemm", "  float acc = 0.0f;\n",
            "  float acc = 0.0f;\n  while (args.m > 0 && clock64() >= 0) {\n  }\n", "time limit"),
    Planted("reads_out_of_bounds", "01_naive_gemm", GEMM_LOOP,
            "  for (int p = 0; p <= args.k; ++p) acc += a_row[p] * b_col[p * args.ldb] * (p < args.k);\n",
            "memcheck errors"),
    # The second barrier gone: the next tile may overwrite one a slower warp still reads. Often the
    # results survive; racecheck sees the hazard.
    Planted("race", "02_smem_tiling",
            "    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles\n",
            "", "racecheck hazards"),
    Planted("tile_multiple_only", "02_smem_tiling", "for (int k0 = 0; k0 < args.k; k0 += kTile)",
            "for (int k0 = 0; k0 + kTile <= args.k; k0 += kTile)", "odd_17x33x65"),
    # Results kept from earlier launches, keyed by C's address, on large problems with beta = 0 (the
    # timed runs' case, where C is only written): the grading tests (below 1024 rows) and the checks
    # before timing see a correct kernel; the timed runs skip their work. Caught by the check after
    # timing that refills the timed buffers and launches once more as timed.
    Planted("caches_by_pointer", "01_naive_gemm", "  if (row >= args.m || col >= args.n) return;  // the grid is rounded up to whole blocks\n",
            "  if (row >= args.m || col >= args.n) return;  // the grid is rounded up to whole blocks\n"
            "  if (args.m >= 1024 && args.beta == 0.0f)  // planted: 'already computed for this C'\n"
            "    for (float* seen : seen_c)\n      if (seen == args.c) return;\n",
            "wrong after timing"),
    # Lab 03's four layouts as one: every variant stores and reads the tiles as RR does. All tests pass;
    # the bank-conflict profile (the rubric's distinct rule) shows three variants repeating RR.
    Planted("one_layout_lab03", "03_transposed_layouts",
            "template <bool kTransposeA, bool kTransposeB>\n__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {\n",
            "template <bool kIgnoredA, bool kIgnoredB>\n__global__ void layout_gemm_kernel(cudalabs::GemmArgs args) {\n"
            "  constexpr bool kTransposeA = false, kTransposeB = false;  // planted: RR under every name\n",
            "not distinct from RR"),
    # A lab 10 that loops over the GPUs instead of running them at once.
    Planted("serial_lab10", "10_multi_gpu_dcgan", "    });\n  }\n  for (std::thread& thread : threads) thread.join();\n",
            "    });\n    threads.back().join();  // planted: one GPU at a time\n  }\n",
            "failing: WorkersRunAtTheSameTime"),
]

# The cache's memory and its update at the end of the kernel (the caches_by_pointer plant).
CACHE_STATE = ("  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n", (
    "  cudalabs::store_gemm_result(args.c + row * args.ldc + col, acc, args.alpha, args.beta);\n"
    "  if (row == args.m - 1 && col == args.n - 1 && args.m >= 1024 && args.beta == 0.0f)  // planted\n"
    "    seen_c[seen_count++ % 8] = args.c;\n"))
CACHE_DECLARATIONS = ("namespace lab01 {\nnamespace {\n",
                      "namespace lab01 {\nnamespace {\n\n__device__ float* seen_c[8];  // planted\n"
                      "__device__ unsigned seen_count;\n")


def write_class(class_dir: Path) -> dict[str, dict[str, str]]:
    """Writes the class; returns student -> {lab folder: what the report must say}."""
    if class_dir.exists():
        shutil.rmtree(class_dir)
    folders = sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir())
    expected: dict[str, dict[str, str]] = {"solutions": {f: "full marks" for f in folders},
                                           "skeletons": {f: "not implemented yet" for f in folders}}
    for folder in folders:
        for student, files in (("solutions", handed_in(REPO, folder)),
                               ("skeletons", {"kernels.cu": (REPO / "labs" / folder / "kernels.cu").read_text()})):
            (class_dir / student / folder).mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (class_dir / student / folder / name).write_text(text)
    for plant in PLANTED:
        source = replace_once(single_file(REPO, plant.folder), plant.old, plant.new, plant.student)
        if plant.student == "caches_by_pointer":
            source = replace_once(source, *CACHE_STATE, plant.student)
            source = replace_once(source, *CACHE_DECLARATIONS, plant.student)
        (class_dir / plant.student / plant.folder).mkdir(parents=True)
        (class_dir / plant.student / plant.folder / "kernels.cu").write_text(source)
        expected[plant.student] = {plant.folder: plant.expect}
    # Two near-copies of each other: the same lab 01, renamed and re-spaced by one of them.
    original = single_file(REPO, "01_naive_gemm")
    for student, text in (("copy_a", original), ("copy_b", original.replace("acc", "sum").replace("  ", "   "))):
        (class_dir / student / "01_naive_gemm").mkdir(parents=True)
        (class_dir / student / "01_naive_gemm" / "kernels.cu").write_text(text)
        expected[student] = {"01_naive_gemm": "similar pair: copy_a, copy_b"}
    (class_dir / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    rubric = json.loads((REPO / "tests" / "grading" / "rubric.json").read_text())
    rubric["labs"]["01"]["time_limit_s"] = 90
    (class_dir / "rubric.json").write_text(json.dumps(rubric, indent=1) + "\n")
    return expected


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: planted_class.py CLASS_DIR", file=sys.stderr)
        sys.exit(2)
    written = write_class(Path(sys.argv[1]))
    print(f"planted_class: {len(written)} submissions in {sys.argv[1]} (expected results in expected.json)")
