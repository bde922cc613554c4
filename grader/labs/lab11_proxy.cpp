// Lab 11's interface as the referee links it: the BF16 variants the grader names and `best`, each
// made in the runner on the student's code.
#include "grader/referee/gemm_workload.h"
#include "grader/referee/remote_variants.h"
#include "labs/11_tensor_cores/lab.h"

namespace lab11 {

std::span<const TensorCoreVariant> variants() {
  return grader::referee::remote_gemm_variants<__nv_bfloat16>("variants");
}

std::span<const Fp16TensorCoreVariant> fp16_variants() {
  return grader::referee::remote_gemm_variants<__half>("fp16_variants");
}

void best_gemm(const cudalabs::Bf16GemmArgs& args, cudaStream_t stream) {
  grader::referee::remote_gemm<__nv_bfloat16>("gemm.best", "", args, stream);
}

}  // namespace lab11

std::unique_ptr<grader::referee::Workload> grader::referee::make_workload(
    const std::string& variant, const std::vector<std::string>& args) {
  // The FP16 rungs are timed and profiled in FP16, the others in BF16.
  const cudalabs::GemmShape shape = gemm_shape_from(args, {512, 512, 256});
  for (const std::string& name : given_variant_names("fp16_variants"))
    if (name == variant) return gemm_workload<__half>("gemm.fp16_variants", variant, shape);
  return gemm_workload<__nv_bfloat16>("gemm.variants", variant, shape);
}
