// Lab 11's interface as the referee links it: the BF16 variants the grader names and `best`, each
// made in the runner on the student's code (the calls: gemm_remote.h).
#include "grader/referee/gemm_workload.h"
#include "grader/referee/remote_variants.h"
#include "labs/11_tensor_cores/lab.h"

namespace lab11 {

std::span<const TensorCoreVariant> variants() {
  return grader::referee::remote_gemm_variants<__nv_bfloat16>();
}

std::span<const Fp16TensorCoreVariant> fp16_variants() {
  return grader::referee::remote_gemm_variants<__half, grader::gemm_remote::kFp16Variants>();
}

void best_gemm(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream) {
  grader::referee::remote_gemm<__nv_bfloat16>(grader::gemm_remote::GemmBest{}, args, stream);
}

}  // namespace lab11

std::unique_ptr<grader::referee::Workload> grader::referee::make_workload(
    const std::string& variant, const std::vector<std::string>& args) {
  // The FP16 rungs are timed and profiled in FP16, the others in BF16.
  const cudalabs::GemmShape shape = gemm_shape_from(args, {512, 512, 256});
  for (const std::string& name : given_variant_names(gemm_remote::kFp16Variants))
    if (name == variant)
      return gemm_variant_workload<__half, gemm_remote::kFp16Variants>(variant, shape);
  return gemm_variant_workload<__nv_bfloat16>(variant, shape);
}
