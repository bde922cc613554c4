/// @file build_report.h
/// @brief Which code this GPU runs, and which features a lab teaches the build leaves out for it.
///
/// A build carries machine code for some architectures and PTX for others
/// (CMAKE_CUDA_ARCHITECTURES). On a GPU it has no machine code for, the driver JIT-compiles the
/// newest PTX that is not newer than the GPU, and the kernels then see that older architecture:
/// `#if __CUDA_ARCH__ >= 800` code (cp.async, BF16 tensor cores) is gone although the GPU has it.
/// Every driver prints, in its first lines, when that happened (print_build_report), so a build for
/// the wrong GPU is never silent. The decision reads what the build contains for this GPU, per
/// kernel: the virtual architecture its code was compiled from (cudaFuncAttributes::ptxVersion),
/// never only the binary version, which after JIT compilation is the GPU's own.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace cudalabs {

/// The code of one kernel as this GPU runs it.
struct KernelCode {
  int ptx_arch = 0;     ///< the virtual architecture it was compiled from (ptxVersion), e.g. 75
  int binary_arch = 0;  ///< the machine code it runs (binaryVersion): the GPU's own after JIT
  /// True when the driver JIT-compiled the code from PTX of an older architecture: the build has
  /// no machine code this GPU can run.
  bool jit() const { return ptx_arch < binary_arch; }
};

/// What the build holds for `kernel` (a __global__ function) on the current GPU
/// (cudaFuncGetAttributes). Requires a GPU.
KernelCode kernel_code(const void* kernel);

/// A kernel of common/ itself, built for the same architectures as every lab's kernels
/// (CMAKE_CUDA_ARCHITECTURES; lab 11's differ only by sm_90a): the code a lab gets on this GPU.
const void* build_probe_kernel();

/// A feature a lab teaches that needs code compiled for compute capability `needs_arch / 10 .
/// needs_arch % 10` or newer, on a GPU that has it.
struct BuildFeature {
  const char* name;     ///< e.g. "cp.async"
  int needs_arch;       ///< e.g. 80 for compute capability 8.0
  const char* users;    ///< the variants that use it, space-separated, e.g. "cp_async"
  const char* without;  ///< what they do without it, e.g. "copy through registers instead"
  /// Architecture-specific code (sm_90a): only GPUs of the same major version have the feature,
  /// newer ones neither.
  bool arch_specific = false;
};

/// "7.5" for 75.
std::string arch_text(int arch);

/// The command-line advice for a build that suits a GPU of `device_arch`:
/// "-DCMAKE_CUDA_ARCHITECTURES=86".
std::string configure_advice(int device_arch);

/// Why a kernel whose code is `code`, on a GPU of compute capability `device_arch`, cannot use a
/// feature that needs `needs_arch`: the GPU is older, or the build's code for this GPU is (JIT
/// from older PTX, or machine code of an older architecture). Empty when it can.
std::string missing_feature_reason(int device_arch, const KernelCode& code, int needs_arch,
                                   bool arch_specific = false);

/// The lines a driver prints under its header: one when `lab_code` was JIT-compiled from older PTX,
/// and one per feature missing for this GPU (`feature_codes[i]`: the code of a kernel that uses
/// `features[i]`). None when the build suits this GPU.
std::vector<std::string> build_report_lines(int device_arch, const KernelCode& lab_code,
                                            std::span<const BuildFeature> features,
                                            std::span<const KernelCode> feature_codes);

/// Prints build_report_lines for the current GPU: `lab_kernel` stands for the lab's code (null:
/// build_probe_kernel()), `feature_kernels[i]` is a kernel that uses `features[i]` (null: the
/// lab's). Requires a GPU.
void print_build_report(std::ostream& out, const void* lab_kernel,
                        std::span<const BuildFeature> features = {},
                        std::span<const void* const> feature_kernels = {});

}  // namespace cudalabs
