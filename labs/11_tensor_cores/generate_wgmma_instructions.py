#!/usr/bin/env python3
"""Writes wgmma_instructions.cuh: one wgmma.mma_async wrapper per input type (BF16, TF32) and tile
width N (64, 128, 256), and BF16 with A MN-major (N = 128, 256).

Inline assembly takes no arrays, so each wrapper lists its N / 2 accumulator registers one by one;
this script writes them so that nobody edits 128 operands by hand. Run it from anywhere:
    python3 labs/11_tensor_cores/generate_wgmma_instructions.py
The repository's tests check that the committed header is what this script writes.
"""
import pathlib
import sys

WIDTHS = (64, 128, 256)
HEADER = pathlib.Path(__file__).with_name("wgmma_instructions.cuh")

PREAMBLE = """\
/// @file labs/11_tensor_cores/wgmma_instructions.cuh
/// @brief wgmma.mma_async with FP32 accumulators for N = 64, 128, 256: BF16 inputs, m64nNk16, A
/// from shared memory K-major (row-major A), B from shared memory MN-major (row-major B, the
/// "transposed" bit set); TF32 inputs, m64nNk8, both K-major (TF32 has no transposed form); BF16
/// with A MN-major and B K-major (wgmma_bf16_a_mn: a product whose A is stored column-major).
/// Included by tensor_core_ptx.cuh.
///
/// Written by generate_wgmma_instructions.py (do not edit by hand): one instruction per N, each
/// with its N / 2 accumulator registers listed one by one, because inline assembly takes no arrays.
/// The accumulator layout (PTX ISA, "Register Fragments" of wgmma .m64nNk16): warp w of the
/// warpgroup holds rows 16 w .. 16 w + 15; lane l holds, for each 8-column block j, d[4j] and
/// d[4j + 1] at row 16 w + l / 4, columns 8 j + 2 (l % 4) + {0, 1}, and d[4j + 2], d[4j + 3] eight
/// rows below.
#pragma once

#include <cstdint>

namespace lab11::ptx {

/// D (+)= A * B for a 64 x kN x 16 step: `accumulate` 0 overwrites D (the first step of a tile).
template <int kN>
__device__ __forceinline__ void wgmma_bf16(float (&d)[kN / 2], std::uint64_t a_descriptor,
                                           std::uint64_t b_descriptor, int accumulate);

/// D (+)= A * B for a 64 x kN x 8 step of TF32 inputs (FP32 bits, the low 13 mantissa bits
/// ignored), both operands K-major.
template <int kN>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], std::uint64_t a_descriptor,
                                           std::uint64_t b_descriptor, int accumulate);

/// D (+)= A * B for a 64 x kN x 16 step of BF16 inputs, A MN-major (column-major: for each k its
/// 64 rows side by side, as a B tile of 64 columns is stored) and B K-major (as an A tile of kN
/// rows is stored).
template <int kN>
__device__ __forceinline__ void wgmma_bf16_a_mn(float (&d)[kN / 2], std::uint64_t a_descriptor,
                                                std::uint64_t b_descriptor, int accumulate);
"""


def rows(items, per_row):
    return [items[i:i + per_row] for i in range(0, len(items), per_row)]


# name, instruction type and K of one step, the immediates after `accumulate` (the scales of A and
# B, then, 16-bit types only, their transpose bits), and the widths written.
TYPES = (("bf16", "bf16.bf16", 16, "1, 1, 0, 1", WIDTHS), ("tf32", "tf32.tf32", 8, "1, 1", WIDTHS),
         ("bf16_a_mn", "bf16.bf16", 16, "1, 1, 1, 0", (128, 256)))
LABELS = {"bf16": "BF16 inputs", "tf32": "TF32 inputs", "bf16_a_mn": "BF16 inputs, A MN-major"}


def specialization(n, kind):
    name, types, k, immediates, _ = kind
    count = n // 2
    def register_row(row):
        separator = ", " if row[-1] != count - 1 else ""
        return '      "' + ", ".join(f"%{i}" for i in row) + separator + '"'
    registers = "\n".join(register_row(row) for row in rows(list(range(count)), 12))
    outputs = ",\n".join("        " + ", ".join(f'"+f"(d[{i}])' for i in row)
                         for row in rows(list(range(count)), 6))
    signature = f"__device__ __forceinline__ void wgmma_{name}<{n}>("
    indent = " " * len(signature)
    return f"""
/// D (+)= A * B for a 64 x {n} x {k} step of {LABELS[name]}, {count} accumulators a thread.
template <>
{signature}float (&d)[{count}], std::uint64_t a_descriptor,
{indent}std::uint64_t b_descriptor, int accumulate) {{
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{{\\n"
      ".reg .pred accumulate;\\n"
      "setp.ne.b32 accumulate, %{count + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{types} "
      "{{"
{registers}
      "}}, %{count}, %{count + 1}, accumulate, {immediates};\\n"
      "}}\\n"
      :
{outputs}
      : "l"(a_descriptor), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}}
"""


def text():
    body = "".join(specialization(n, kind) for kind in TYPES for n in kind[4])
    return PREAMBLE + body + "\n}  // namespace lab11::ptx\n"


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(f"generate_wgmma_instructions.py: takes no arguments, got '{sys.argv[1]}'")
    HEADER.write_text(text())
    widths = ", ".join(map(str, WIDTHS))
    print(f"generate_wgmma_instructions.py: wrote {HEADER.name} (N = {widths})")
