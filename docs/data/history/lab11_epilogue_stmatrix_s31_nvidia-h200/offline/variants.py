#!/usr/bin/env python3
"""Call 1's experiments: copies of main's solutions/11_tensor_cores/subpixel_kernel.cuh (at cef63d0),
each in a folder of its name, for scripts/build.sh. Not kept in the repository: they measure where
tconv3's time goes.
  noepi   the turned consumers skip their epilogue (no output: checksum 0)
  nomma   meant to skip the products; its switch was written the wrong way round, so it ran main's
          kernel (its times and checksums are base's: a third base in each round)
  nocopy  the producer copies nothing (the full barriers complete at once; the products read stale
          stages)
  ep2/ep4 the turned epilogue in 2 or 4 pieces, piece q while the tensor cores multiply k step q
Usage: variants.py BASE_KERNEL  (writes ./noepi, ./nomma, ./nocopy, ./ep2, ./ep4)
"""
import pathlib
import sys

RELU_NEVER_7 = "p.relu == 7"  # p.relu is 0 or 1: a condition that is never true, kept in the code


def variant(base, name, pairs):
    s = base
    for old, new in pairs:
        assert old in s, (name, old[:60])
        s = s.replace(old, new)
    folder = pathlib.Path(name)
    folder.mkdir(exist_ok=True)
    (folder / "subpixel_kernel.cuh").write_text(s)


def pieces(base, n):
    s = base
    for old, new in [
        ("  wait_staging_free(consumer);\n#pragma unroll\n  for (int b = 0; b < 16; ++b) {",
         "  if (kPiece == 0) wait_staging_free(consumer);\n#pragma unroll\n"
         "  for (int b = kPiece * 16 / kPieces; b < (kPiece + 1) * 16 / kPieces; ++b) {"),
        ("  store_staged_boxes(p, out, consumer, 2, pixel0, col0, z, false);\n}",
         "  if (kPiece == kPieces - 1) store_staged_boxes(p, out, consumer, 2, pixel0, col0, z, false);\n}"),
        ("template <class T>\n__device__ __forceinline__ void copy_out_phase_pixels_turned(",
         "template <int kPiece, int kPieces, class T>\n__device__ __forceinline__ void copy_out_phase_pixels_turned("),
        ("        copy_out_phase_pixels_turned(p, bn, out, consumer, done, finished.pixel0, finished.col0,\n"
         "                                     finished.z);",
         "        copy_out_phase_pixels_turned<decltype(piece)::value, kPieces>(p, bn, out, consumer, done,\n"
         "            finished.pixel0, finished.col0, finished.z);"),
        ("  const auto epilogue = [&] {",
         f"  constexpr int kPieces = {n};\n  const auto epilogue_piece = [&](auto piece) {{"),
        ("    store_phase_pixels_turned(p, bn, done, finished.pixel0, finished.col0, finished.z);\n  };",
         "    if constexpr (decltype(piece)::value == 0)\n"
         "      store_phase_pixels_turned(p, bn, done, finished.pixel0, finished.col0, finished.z);\n  };\n"
         "  // pieces from `first` on: k step kt runs piece kt; the last k step, or the end, the rest\n"
         "  const auto epilogue_from = [&](int first, bool rest) {\n"
         "    if (first == 0) epilogue_piece(std::integral_constant<int, 0>{});\n"
         + "".join(f"    if constexpr (kPieces > {q}) {{ if (first == {q} || (rest && first < {q}))"
                   f" epilogue_piece(std::integral_constant<int, {q}>{{}}); }}\n" for q in (1, 2, 3))
         + "  };"),
        ("      if (kt == 0 && finished.z >= 0) epilogue();",
         "      if (kt < kPieces && finished.z >= 0) epilogue_from(kt, kt == k_steps - 1);"),
        ("  if (finished.z >= 0) epilogue();\n}", "  if (finished.z >= 0) epilogue_from(0, true);\n}"),
        ('#include "subpixel_plan.h"\n', '#include "subpixel_plan.h"\n\n#include <type_traits>\n'),
    ]:
        assert old in s, (n, old[:60])
        s = s.replace(old, new, 1)
    folder = pathlib.Path(f"ep{n}")
    folder.mkdir(exist_ok=True)
    (folder / "subpixel_kernel.cuh").write_text(s)


def main(path):
    base = pathlib.Path(path).read_text()
    variant(base, "noepi", [("  const auto epilogue = [&] {\n",
                             f"  const auto epilogue = [&] {{\n    if (!({RELU_NEVER_7})) return;\n")])
    variant(base, "nomma", [("      if (tap_rows == 3) {\n        issue_taps_turned<3, T>",
                             f"      if ({RELU_NEVER_7}) {{\n      }} else if (tap_rows == 3) {{\n"
                             "        issue_taps_turned<3, T>")])
    variant(base, "nocopy", [(
        "      ptx::mbarrier_arrive_expect_bytes(&full[s],\n"
        "                                        p.a_box_bytes + tap_rows * BN * SwizzledTile::kRowBytes);\n"
        "      ptx::tma_load_4d(stage, &a_map, &full[s], c0, column, row, image);\n"
        "      for (int t = 0; t < tap_rows; ++t)",
        "      ptx::mbarrier_arrive_expect_bytes(&full[s], 0);\n"
        f"      if ({RELU_NEVER_7}) ptx::tma_load_4d(stage, &a_map, &full[s], c0, column, row, image);\n"
        f"      if ({RELU_NEVER_7}) for (int t = 0; t < tap_rows; ++t)")])
    for n in (2, 4):
        pieces(base, n)


if __name__ == "__main__":
    main(sys.argv[1])
