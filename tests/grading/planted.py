"""Planted submissions for the grader's own tests: each takes a lab's reference solution and changes one
thing, so that the grader must find exactly that fault and nothing else.

Every plant names the text it replaces; if a solution is edited so that the text is gone, building the
planted submission fails loudly instead of planting nothing.
"""
from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
from grading.solution_file import single_file  # noqa: E402


@dataclass(frozen=True)
class Plant:
    folder: str
    old: str
    new: str
    expect_fatal: str | None  # the reason class in grade-report.json ('does not compile', ...), None if graded
    # Graded plants: the tests each variant must fail, every other test must pass.
    expect_failing: dict[str, set[str]] = field(default_factory=dict)


# Lab 02 with the last, partial K tile ignored: exactly the cases whose K is not a multiple of the
# 32-wide tile fail, except alpha = 0, whose result does not depend on the product.
_PARTIAL_K_TILE_CASES = {
    "one_element_1x1x1", "odd_17x33x65", "odd_1000x999x1001", "rect_96x40x300", "tall_1000x1x257",
    "wide_1x1030x33", "k_one_70x50x1", "padded_ld_70x50x90", "misaligned_131x67x69", "large_odd_1537x1031x2051",
    "ldc_misaligned_200x136x72", "ld_mod4_2_130x66x70", "large_k_64x64x5000", "large_k_odd_33x65x4099",
}

PLANTS = [
    Plant("01_naive_gemm", "  float acc = 0.0f;\n", "  float acc = 0.0f  // planted: a missing semicolon\n",
          expect_fatal="does not compile"),
    Plant("02_smem_tiling", "for (int k0 = 0; k0 < args.k; k0 += kTile)",
          "for (int k0 = 0; k0 + kTile <= args.k; k0 += kTile)", expect_fatal=None,
          expect_failing={v: _PARTIAL_K_TILE_CASES for v in ("tiled_strided", "tiled_strided_padded", "tiled_coalesced")}),
    # One row past the end of C in the bottom row of blocks: wrong only outside the matrix, which the
    # value check cannot see but memcheck does.
    Plant("03_transposed_layouts", "  if (row < args.m && col < args.n) {\n",
          "  if (row < args.m + 1 && col < args.n) {  // planted: one row too many\n", expect_fatal="memcheck errors"),
    Plant("04_block_size", "  float acc = 0.0f;\n",
          "  float acc = 0.0f;\n  while (args.m > 0 && clock64() >= 0) {\n  }  // planted: never ends\n",
          expect_fatal="time limit"),
    # No header or call the integrity rules refuse: the crash must reach the tests to be caught there.
    Plant("05_register_tiling", '#include "launch.cuh"\n',
          '#include "launch.cuh"\n\nnamespace {\n// planted: the program is killed by a segmentation fault while it starts\n'
          "const int planted_crash = [] {\n  volatile int* nowhere = nullptr;\n  return *nowhere;\n}();\n"
          "}  // namespace\n",
          expect_fatal="crashed"),
]


def replace_once(source: str, old: str, new: str, where: str) -> str:
    """source with `old` replaced by `new`; fails loudly when `old` does not occur exactly once (a
    solution changed under the plant), instead of planting nothing."""
    count = source.count(old)
    if count != 1:
        raise RuntimeError(f"plant for {where}: the text to replace occurs {count} times, expected once: {old!r}")
    return source.replace(old, new)


def make_planted_submission(folder: Path) -> list[Plant]:
    """Writes folder/NN_name/kernels.cu for every plant; returns the plants."""
    if folder.exists():
        shutil.rmtree(folder)
    for plant in PLANTS:
        source = single_file(REPO, plant.folder)  # as a student hands it in: one file
        target = folder / plant.folder / "kernels.cu"
        target.parent.mkdir(parents=True)
        target.write_text(replace_once(source, plant.old, plant.new, plant.folder))
    return PLANTS
