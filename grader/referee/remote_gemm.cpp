#include "grader/referee/remote_gemm.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace grader::referee {

std::int64_t operand_elements(int rows, int cols, int ld) {
  if (rows < 1 || cols < 1 || ld < cols) return -1;
  return static_cast<std::int64_t>(rows - 1) * ld + cols;
}

template <class Input>
gemm_remote::GemmOperands put_gemm_operands(OperandSession& session,
                                            const cudalabs::GemmArgsOf<Input>& args) {
  const std::int64_t a =
      session.input(args.a, operand_elements(args.m, args.k, args.lda), sizeof(Input));
  const std::int64_t b =
      session.input(args.b, operand_elements(args.k, args.n, args.ldb), sizeof(Input));
  const std::int64_t c =
      session.output(args.c, operand_elements(args.m, args.n, args.ldc), sizeof(float), "C");
  return {.m = args.m,
          .n = args.n,
          .k = args.k,
          .lda = args.lda,
          .ldb = args.ldb,
          .ldc = args.ldc,
          .alpha = args.alpha,
          .beta = args.beta,
          .a = {a},
          .b = {b},
          .c = {c}};
}

template gemm_remote::GemmOperands put_gemm_operands(OperandSession&,
                                                     const cudalabs::GemmArgsOf<float>&);
template gemm_remote::GemmOperands put_gemm_operands(OperandSession&,
                                                     const cudalabs::GemmArgsOf<__nv_bfloat16>&);
template gemm_remote::GemmOperands put_gemm_operands(OperandSession&,
                                                     const cudalabs::GemmArgsOf<__half>&);

}  // namespace grader::referee
