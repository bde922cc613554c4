// Experiment: one build of the RGB layer's kernel (macros from the command line), C = 64, K = 3.
#define RGB_EXPERIMENT 1
#include "labs/11_tensor_cores/dcgan_rgb_layer.cu"
namespace lab11 {
void VARIANT_BF16(const cudalabs::dcgan::TconvShape& s, const __nv_bfloat16* in, const float* f,
                  const float* b, float* out, cudaStream_t st) {
  launch_rgb<__nv_bfloat16, 2, 3>(s, in, f, b, out, st, "bf16");
}
void VARIANT_TF32(const cudalabs::dcgan::TconvShape& s, const float* in, const float* f,
                  const float* b, float* out, cudaStream_t st) {
  launch_rgb<float, 2, 3>(s, in, f, b, out, st, "tf32");
}
}  // namespace lab11
