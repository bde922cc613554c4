/// @file labs/09_dcgan/lab.h
/// @brief Lab 09: the DCGAN generator of [DCGAN-SHPC] on one GPU: transposed convolutions written
/// four ways (naive, branch-free, lowered to a GEMM, sub-pixel), batch norm fused, batches
/// pipelined.
///
/// The network, the tensor layouts and the transposed convolution's exact sum are in
/// common/dcgan_model.h; the CPU reference is common/reference_dcgan.h. Activations are H x W x C
/// per image, images one after another, so a layer's output is the row-major matrix O' of
/// [DCGAN-SHPC]'s eq. 1 (rows = pixels, columns = channels).
#pragma once

#include "common/compute_precision.h"
#include "common/gemm_variant.h"
#include "common/reference_dcgan.h"

#include <cuda_runtime.h>

#include <array>
#include <span>
#include <string>

/// Lab 09: the DCGAN generator.
namespace lab09 {

/// What a layer does to each value after its sum.
enum class Activation { kNone, kRelu, kTanh };

/// The per-channel tail of a layer, applied to every output value v of channel c:
/// activation(v * scale[c] + shift[c]). scale == nullptr means 1, shift == nullptr means 0.
/// A plain transposed convolution passes shift = bias; the fused one passes the batch norm folded
/// into scale and shift (generator.h says how), so that one pass does bias + batch norm + ReLU.
struct Epilogue {
  const float* scale = nullptr;               ///< device, one per output channel (or nullptr)
  const float* shift = nullptr;               ///< device, one per output channel (or nullptr)
  Activation activation = Activation::kNone;  ///< applied last
};

/// One transposed convolution (5 x 5, stride 2, 'SAME'): input batch x H x W x C, output
/// batch x 2H x 2W x K, filter [5][5][K][C], all on the device.
struct TconvArgs {
  cudalabs::dcgan::TconvShape shape;  ///< sizes
  const float* input = nullptr;       ///< batch x H x W x C
  const float* filter =
      nullptr;              ///< [5][5][K][C] (for tconv_subpixel: the packed filter, subpixel.h)
  float* output = nullptr;  ///< batch x 2H x 2W x K, every element written
  Epilogue epilogue;        ///< applied to every output value
};

// ---- The kernels the student writes (kernels.cu) ----

/// One thread per output value; every one of the 25 taps is visited and the taps that fall on an
/// inserted zero are skipped by a branch ([DCGAN-SHPC] §2.2).
void tconv_naive(const TconvArgs& args, cudaStream_t stream);

/// The same, with the branch removed ([DCGAN-SHPC] §2.2.1): the r loop starts at the parity that
/// lands on a real input row and steps by 2, likewise s, so no thread visits a zero.
void tconv_branch_free(const TconvArgs& args, cudaStream_t stream);

/// [DCGAN-SHPC]'s lowering (eqs. 11-12): writes I' for `shape.batch` images, a row-major matrix of
/// batch x 2H x 2W rows and 25 C columns; row d = (image, y, x), column (r * 5 + s) * C + c holds
/// J[y + r][x + s][c], the zero-inserted, padded input. Multiplied by W' (eqs. 5-6, built by the
/// generator) it gives the layer's output.
void lower_tconv_input(const cudalabs::dcgan::TconvShape& shape, const float* input, float* lowered,
                       cudaStream_t stream);

/// The sub-pixel (phase) form: the four output phases (y mod 2, x mod 2) are four ordinary
/// convolutions with 2 or 3 taps per axis, computed as one implicit GEMM per phase (no lowered
/// matrix in memory, no zero multiplied). `args.filter` is the packed filter of subpixel.h.
/// Requires in_channels % 8 == 0 and out_channels % 4 == 0 or out_channels <= 4 (then one thread
/// per output pixel, the filter in shared memory); throws std::invalid_argument otherwise.
void tconv_subpixel(const TconvArgs& args, cudaStream_t stream);

// ---- The launches, described without running them (occupancy and resource checks) ----

/// The kernel and configuration tconv_naive launches for `shape`.
cudalabs::KernelLaunch describe_tconv_naive(const cudalabs::dcgan::TconvShape& shape);
/// The kernel and configuration tconv_branch_free launches for `shape`.
cudalabs::KernelLaunch describe_tconv_branch_free(const cudalabs::dcgan::TconvShape& shape);
/// The kernel and configuration lower_tconv_input launches for `shape`.
cudalabs::KernelLaunch describe_lower_tconv_input(const cudalabs::dcgan::TconvShape& shape);
/// The kernel (which of the sub-pixel kernels the layer's width chooses) and configuration
/// tconv_subpixel launches for `shape`; throws std::invalid_argument for a shape it refuses.
cudalabs::KernelLaunch describe_tconv_subpixel(const cudalabs::dcgan::TconvShape& shape);

// ---- The variants the driver, the tests and the benchmarks iterate over ----

/// How one transposed convolution is computed.
enum class TconvMethod {
  kNaive,       ///< tconv_naive
  kBranchFree,  ///< tconv_branch_free
  kGemm,        ///< lower_tconv_input + the lab 07 GEMM, one image at a time ([DCGAN-SHPC] §2.3.1)
  kGemmBatched,  ///< lower_tconv_input + the lab 07 GEMM over many images at once (§2.3.3)
  kSubpixel,     ///< tconv_subpixel
};

/// The method's name as tables print it.
const char* method_name(TconvMethod method);

/// One way to run the whole generator.
struct DcganVariant {
  const char* name;                    ///< benchmark name part: `lab09/NAME/b<batch>`
  const char* summary;                 ///< one line for --list
  std::array<TconvMethod, 4> methods;  ///< per transposed convolution (layer 1..4)
  bool fused;            ///< bias + batch norm + ReLU (or tanh) in the layer's own pass
  bool measured_choice;  ///< methods chosen per layer by timing the candidates on this GPU (§2.4)
  /// What the layers compute in: every variant of this lab is FP32; lab 11's tensor-core layers
  /// (generator.h's PrecisionLayers) run the others.
  cudalabs::ComputePrecision precision = cudalabs::ComputePrecision::kFp32;
};

/// naive, branch_free, gemm, gemm_batched, per_layer, fused, subpixel.
std::span<const DcganVariant> variants();

/// The variant named `name`; throws std::invalid_argument listing the names otherwise.
const DcganVariant& find_variant(const std::string& name);

}  // namespace lab09

/// Which build of lab 09's kernels this program linked: "student" or "solution". CMake generates
/// it for each kernel library, so that a later lab's driver can say what it runs on
/// (common/earlier_labs.h).
extern "C" const char* cudalabs_lab09_kernels_build();
