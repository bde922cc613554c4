#!/usr/bin/env python3
"""Writes wgmma_attention.cuh: the two warpgroup MMAs lab 13's Hopper kernel issues, BF16 in, FP32
accumulators:
  - S = Q K^T: m64nNk16 with A (Q) and B (K) both from shared memory, both K-major (a key's
    head_dim values are contiguous, so K is B's transpose stored row by row: no transpose bit);
  - O += P V: m64nNk16 with A (P) from registers, four 32-bit registers a thread in mma.sync's
    A layout, and B (V) from shared memory MN-major (V's rows: the transpose bit set).
Inline assembly takes no arrays, so each wrapper lists its N / 2 accumulator registers one by one;
this script writes them so that nobody edits 64 operands by hand. Run it from anywhere:
    python3 labs/13_attention/generate_wgmma_attention.py          write the header
    python3 labs/13_attention/generate_wgmma_attention.py --check  exit 1 when it differs
"""
import pathlib
import sys

HEADER = pathlib.Path(__file__).with_name("wgmma_attention.cuh")
SHARED_WIDTHS = (64, 128, 176)  # S: 64 keys per tile (128, 176: the wider tiles of steps past the ladder)
REGISTER_WIDTHS = (64, 128)  # O: the head dimension

PREAMBLE = """\
/// @file labs/13_attention/wgmma_attention.cuh
/// @brief The warpgroup MMAs (wgmma.mma_async, sm_90a) of lab 13's Hopper kernel, BF16 inputs and
/// FP32 accumulators: S = Q K^T with both operands in shared memory, K-major; O += P V with P from
/// registers and V in shared memory, MN-major. Included by the lab's kernels after
/// labs/11_tensor_cores/tensor_core_ptx.cuh (which defines LAB11_HOPPER_DEVICE_CODE).
///
/// Written by generate_wgmma_attention.py (do not edit by hand): inline assembly takes no arrays.
/// The accumulators are laid out as lab 11's (warp w of the warpgroup holds rows 16 w .. 16 w + 15;
/// lane l holds, per 8-column block j, d[4j], d[4j + 1] at row 16 w + l / 4, columns
/// 8 j + 2 (l % 4) + {0, 1}, and d[4j + 2], d[4j + 3] eight rows below). The A registers of
/// wgmma_bf16_rs are mma.sync's A fragment of the warp's 16 rows: a[0] row l / 4, columns
/// 2 (l % 4) + {0, 1}; a[1] eight rows below; a[2] and a[3] the same eight columns on.
#pragma once

#include <cstdint>

namespace lab13::ptx {

/// D (+)= A * B for a 64 x kN x 16 step, A and B read from shared memory through their
/// descriptors, both K-major; `accumulate` 0 overwrites D.
template <int kN>
__device__ __forceinline__ void wgmma_bf16_ss(float (&d)[kN / 2], std::uint64_t a_descriptor,
                                              std::uint64_t b_descriptor, int accumulate);

/// D (+)= A * B for a 64 x kN x 16 step, A from registers (see the file's comment), B from shared
/// memory MN-major; `accumulate` 0 overwrites D.
template <int kN>
__device__ __forceinline__ void wgmma_bf16_rs(float (&d)[kN / 2], const std::uint32_t (&a)[4],
                                              std::uint64_t b_descriptor, int accumulate);
"""


def rows(items, per_row):
    return [items[i : i + per_row] for i in range(0, len(items), per_row)]


def register_list(count):
    def register_row(row):
        separator = ", " if row[-1] != count - 1 else ""
        return '      "' + ", ".join(f"%{i}" for i in row) + separator + '"'

    return "\n".join(register_row(row) for row in rows(list(range(count)), 12))


def outputs(count):
    return ",\n".join("        " + ", ".join(f'"+f"(d[{i}])' for i in row) for row in rows(list(range(count)), 6))


def shared_form(n):
    count = n // 2
    signature = f"__device__ __forceinline__ void wgmma_bf16_ss<{n}>("
    indent = " " * len(signature)
    return f"""
/// S-style step: 64 x {n} x 16, {count} accumulators a thread.
template <>
{signature}float (&d)[{count}], std::uint64_t a_descriptor,
{indent}std::uint64_t b_descriptor, int accumulate) {{
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{{\\n"
      ".reg .pred accumulate;\\n"
      "setp.ne.b32 accumulate, %{count + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 "
      "{{"
{register_list(count)}
      "}}, %{count}, %{count + 1}, accumulate, 1, 1, 0, 0;\\n"
      "}}\\n"
      :
{outputs(count)}
      : "l"(a_descriptor), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}}
"""


def register_form(n):
    count = n // 2
    signature = f"__device__ __forceinline__ void wgmma_bf16_rs<{n}>("
    indent = " " * len(signature)
    a = ", ".join(f"%{count + i}" for i in range(4))
    return f"""
/// PV-style step: 64 x {n} x 16, A from registers, {count} accumulators a thread.
template <>
{signature}float (&d)[{count}], const std::uint32_t (&a)[4],
{indent}std::uint64_t b_descriptor, int accumulate) {{
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{{\\n"
      ".reg .pred accumulate;\\n"
      "setp.ne.b32 accumulate, %{count + 5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 "
      "{{"
{register_list(count)}
      "}}, {{{a}}}, %{count + 4}, accumulate, 1, 1, 1;\\n"
      "}}\\n"
      :
{outputs(count)}
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}}
"""


def text():
    body = "".join(shared_form(n) for n in SHARED_WIDTHS) + "".join(register_form(n) for n in REGISTER_WIDTHS)
    return PREAMBLE + body + "\n}  // namespace lab13::ptx\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        if not HEADER.exists() or HEADER.read_text() != text():
            sys.exit(f"generate_wgmma_attention.py: {HEADER.name} differs from what this script writes: run it")
        print(f"generate_wgmma_attention.py: {HEADER.name} is current")
        sys.exit(0)
    if len(sys.argv) > 1:
        sys.exit(f"generate_wgmma_attention.py: takes no arguments but --check, got '{sys.argv[1]}'")
    HEADER.write_text(text())
    print(f"generate_wgmma_attention.py: wrote {HEADER.name}")
