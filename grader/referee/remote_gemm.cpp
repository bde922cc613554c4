#include "grader/referee/remote_gemm.h"

#include "grader/referee/remote_operand.h"
#include "grader/referee/remote_runner.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace grader::referee {

std::int64_t operand_elements(int rows, int cols, int ld) {
  if (rows < 1 || cols < 1 || ld < cols) return -1;
  return static_cast<std::int64_t>(rows - 1) * ld + cols;
}

template <class Input>
void remote_gemm(const std::string& function, const std::string& variant,
                 const cudalabs::GemmArgsOf<Input>& args, cudaStream_t stream,
                 const std::vector<std::int64_t>& extra) {
  RemoteRunner& runner = RemoteRunner::shared();
  OperandSession session(runner, stream);
  const std::int64_t a =
      session.input(args.a, operand_elements(args.m, args.k, args.lda), sizeof(Input));
  const std::int64_t b =
      session.input(args.b, operand_elements(args.k, args.n, args.ldb), sizeof(Input));
  const std::int64_t c =
      session.output(args.c, operand_elements(args.m, args.n, args.ldc), sizeof(float), "C");
  Call call{function,
            variant,
            {args.m, args.n, args.k, args.lda, args.ldb, args.ldc},
            {args.alpha, args.beta},
            {a, b, c}};
  call.ints.insert(call.ints.end(), extra.begin(), extra.end());
  session.run({call});
}

template void remote_gemm(const std::string&, const std::string&,
                          const cudalabs::GemmArgsOf<float>&, cudaStream_t,
                          const std::vector<std::int64_t>&);
template void remote_gemm(const std::string&, const std::string&,
                          const cudalabs::GemmArgsOf<__nv_bfloat16>&, cudaStream_t,
                          const std::vector<std::int64_t>&);
template void remote_gemm(const std::string&, const std::string&,
                          const cudalabs::GemmArgsOf<__half>&, cudaStream_t,
                          const std::vector<std::int64_t>&);

}  // namespace grader::referee
