#include "common/build_report.h"

#include "common/cuda_check.h"

#include <cuda_runtime.h>

#include <ostream>
#include <sstream>

namespace cudalabs {

KernelCode kernel_code(const void* kernel) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return KernelCode{attributes.ptxVersion, attributes.binaryVersion};
}

std::string arch_text(int arch) {
  return std::to_string(arch / 10) + "." + std::to_string(arch % 10);
}

std::string configure_advice(int device_arch) {
  return "-DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(device_arch);
}

namespace {

// "compute 7.5 PTX, JIT-compiled" or "sm_80 machine code".
std::string code_text(const KernelCode& code) {
  if (code.jit()) return "compute " + arch_text(code.ptx_arch) + " PTX, JIT-compiled";
  return "sm_" + std::to_string(code.binary_arch) + " machine code";
}

}  // namespace

std::string missing_feature_reason(int device_arch, const KernelCode& code, int needs_arch,
                                   bool arch_specific) {
  if (arch_specific && device_arch / 10 != needs_arch / 10) {
    return "needs compute capability " + std::to_string(needs_arch / 10) + ".x (sm_" +
           std::to_string(needs_arch) + "a code runs there only); this GPU is " +
           arch_text(device_arch);
  }
  if (device_arch < needs_arch) {
    return "needs compute capability " + arch_text(needs_arch) + "; this GPU is " +
           arch_text(device_arch);
  }
  if (code.ptx_arch < needs_arch) {
    return "needs code for compute capability " + arch_text(needs_arch) +
           " or newer, and this build's code for this GPU is " + code_text(code) +
           ": configure a build with " + configure_advice(device_arch);
  }
  return {};
}

std::vector<std::string> build_report_lines(int device_arch, const KernelCode& lab_code,
                                            std::span<const BuildFeature> features,
                                            std::span<const KernelCode> feature_codes) {
  std::vector<std::string> lines;
  if (lab_code.jit()) {
    lines.push_back("code: JIT-compiled for this GPU (sm_" + std::to_string(device_arch) +
                    ") from compute " + arch_text(lab_code.ptx_arch) +
                    " PTX: the build has no machine code for it; for native code configure a "
                    "build with " +
                    configure_advice(device_arch) + " (or where this GPU is visible)");
  }
  for (std::size_t i = 0; i < features.size(); ++i) {
    const BuildFeature& feature = features[i];
    const KernelCode& code = i < feature_codes.size() ? feature_codes[i] : lab_code;
    const std::string reason =
        missing_feature_reason(device_arch, code, feature.needs_arch, feature.arch_specific);
    if (reason.empty()) continue;
    const bool gpu_lacks_it =
        device_arch < feature.needs_arch ||
        (feature.arch_specific && device_arch / 10 != feature.needs_arch / 10);
    std::ostringstream line;
    line << (gpu_lacks_it ? "not on this GPU: " : "missing from this build: ") << feature.name
         << " " << reason << "; " << feature.users << " " << feature.without;
    lines.push_back(line.str());
  }
  return lines;
}

void print_build_report(std::ostream& out, const void* lab_kernel,
                        std::span<const BuildFeature> features,
                        std::span<const void* const> feature_kernels) {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const KernelCode lab_code =
      kernel_code(lab_kernel != nullptr ? lab_kernel : build_probe_kernel());
  std::vector<KernelCode> feature_codes;
  for (std::size_t i = 0; i < features.size(); ++i) {
    const void* kernel = i < feature_kernels.size() ? feature_kernels[i] : nullptr;
    feature_codes.push_back(kernel != nullptr ? kernel_code(kernel) : lab_code);
  }
  for (const std::string& line :
       build_report_lines(10 * major + minor, lab_code, features, feature_codes)) {
    out << line << "\n";
  }
}

}  // namespace cudalabs
