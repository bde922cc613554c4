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

/// S-style step: 64 x 64 x 16, 32 accumulators a thread.
template <>
__device__ __forceinline__ void wgmma_bf16_ss<64>(float (&d)[32], std::uint64_t a_descriptor,
                                                  std::uint64_t b_descriptor, int accumulate) {
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, accumulate, 1, 1, 0, 0;\n"
      "}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
        "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "l"(a_descriptor), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}

/// S-style step: 64 x 128 x 16, 64 accumulators a thread.
template <>
__device__ __forceinline__ void wgmma_bf16_ss<128>(float (&d)[64], std::uint64_t a_descriptor,
                                                   std::uint64_t b_descriptor, int accumulate) {
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
      "%60, %61, %62, %63"
      "}, %64, %65, accumulate, 1, 1, 0, 0;\n"
      "}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
        "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
        "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a_descriptor), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}

/// S-style step: 64 x 176 x 16, 88 accumulators a thread.
template <>
__device__ __forceinline__ void wgmma_bf16_ss<176>(float (&d)[88], std::uint64_t a_descriptor,
                                                   std::uint64_t b_descriptor, int accumulate) {
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %90, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
      "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
      "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
      "%84, %85, %86, %87"
      "}, %88, %89, accumulate, 1, 1, 0, 0;\n"
      "}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
        "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
        "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
        "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
        "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
      : "l"(a_descriptor), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}

/// PV-style step: 64 x 64 x 16, A from registers, 32 accumulators a thread.
template <>
__device__ __forceinline__ void wgmma_bf16_rs<64>(float (&d)[32], const std::uint32_t (&a)[4],
                                                  std::uint64_t b_descriptor, int accumulate) {
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, accumulate, 1, 1, 1;\n"
      "}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
        "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}

/// PV-style step: 64 x 128 x 16, A from registers, 64 accumulators a thread.
template <>
__device__ __forceinline__ void wgmma_bf16_rs<128>(float (&d)[64], const std::uint32_t (&a)[4],
                                                   std::uint64_t b_descriptor, int accumulate) {
#if LAB11_HOPPER_DEVICE_CODE
  // clang-format off
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
      "%60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, accumulate, 1, 1, 1;\n"
      "}\n"
      :
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
        "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
        "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "r"(accumulate));
  // clang-format on
#endif
}

}  // namespace lab13::ptx
