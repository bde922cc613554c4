#include "common/gemm_check.h"

#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <sstream>
#include <type_traits>
#include <vector>

namespace cudalabs {

std::string GemmCase::label() const {
  std::ostringstream text;
  text << shape.label() << " alpha=" << alpha << " beta=" << beta;
  const GemmLayout& l = layout;
  if (l.lda_padding != 0 || l.ldb_padding != 0 || l.ldc_padding != 0) {
    text << " ld+(" << l.lda_padding << "," << l.ldb_padding << "," << l.ldc_padding << ")";
  }
  if (l.pointer_offset != 0) text << " offset " << l.pointer_offset;
  return text.str();
}

const char* outcome_text(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::kPassed:
      return "PASS";
    case CheckOutcome::kNotImplemented:
      return "not implemented yet";
    case CheckOutcome::kFailed:
      return "FAIL";
  }
  return "?";
}

double GemmCheckReport::worst_relative_l2() const {
  return std::max(write_check.relative_l2, value_check.relative_l2);
}

namespace {

// The references for one beta: what the launcher's output is compared with.
struct References {
  ReferenceValues exact;                  // CPU, all elements or samples
  std::optional<ReferenceValues> cublas;  // every element from cuBLAS, for large problems
};

std::vector<float> absolute_values(const std::vector<float>& values) {
  std::vector<float> result(values.size());
  std::transform(values.begin(), values.end(), result.begin(),
                 [](float v) { return std::fabs(v); });
  return result;
}

// The host's floats as the GPU's input type (exact for values already rounded to it).
template <class Input>
std::vector<Input> converted(const std::vector<float>& values) {
  if constexpr (std::is_same_v<Input, float>) {
    return values;
  } else if constexpr (std::is_same_v<Input, __half>) {
    std::vector<Input> result(values.size());
    std::transform(values.begin(), values.end(), result.begin(),
                   [](float v) { return __float2half_rn(v); });
    return result;
  } else {
    std::vector<Input> result(values.size());
    std::transform(values.begin(), values.end(), result.begin(),
                   [](float v) { return __float2bfloat16_rn(v); });
    return result;
  }
}

// cuBLAS at the input's precision: SGEMM for float, BF16 tensor cores for BF16.
void cublas_product_call(const CublasHandle& handle, const GemmArgs& args) {
  cublas_gemm_row_major(handle, args);
}
void cublas_product_call(const CublasHandle& handle, const Bf16GemmArgs& args) {
  cublas_gemm_bf16_row_major(handle, args);
}
void cublas_product_call(const CublasHandle& handle, const Fp16GemmArgs& args) {
  cublas_gemm_fp16_row_major(handle, args);
}

}  // namespace

GemmTolerance tensor_core_tolerance() {
  return GemmTolerance{2.0, 8.0, 1.0 / 8.0};
}

GemmTolerance fp16_tensor_core_tolerance() {
  return GemmTolerance{2.0, 8.0, 1.0 / 2.0};
}

template <>
GemmTolerance input_tolerance<float>() {
  return GemmTolerance{};
}
template <>
GemmTolerance input_tolerance<__nv_bfloat16>() {
  return tensor_core_tolerance();
}
template <>
GemmTolerance input_tolerance<__half>() {
  return fp16_tensor_core_tolerance();
}

template <>
float round_to_input<float>(float value) {
  return value;
}
template <>
float round_to_input<__nv_bfloat16>(float value) {
  return __bfloat162float(__float2bfloat16_rn(value));
}
template <>
float round_to_input<__half>(float value) {
  return __half2float(__float2half_rn(value));
}

template <class Input>
struct BasicGemmVerifier<Input>::State {
  // BF16 or FP16 operands (lab 11): rounded inputs, the tensor cores' tolerance, the rounding cost.
  static constexpr bool kBf16 = !std::is_same_v<Input, float>;
  GemmCase gemm_case;
  std::uint64_t seed = 0;
  GemmCheckOptions options;
  int lda = 0, ldb = 0, ldc = 0;
  std::vector<float> a, b, c0;
  std::vector<float> unrounded_a, unrounded_b;  // BF16: the inputs before rounding
  double rounding_cost = std::nan("");
  DeviceBuffer<Input> device_a, device_b;
  DeviceBuffer<float> device_c;
  std::optional<References> write_refs;  // beta = 0, computed at the first check that needs it
  std::optional<References> value_refs;  // the case's beta, when it is not 0
  std::string description;

  // The references take most of a check's time on the CPU; a TODO kernel never needs them.
  const References& write_references() {
    if (!write_refs) write_refs = product_references();
    return *write_refs;
  }
  const References& value_references() {
    if (!value_refs) value_refs = with_beta(write_references(), gemm_case.beta);
    return *value_refs;
  }

  // The matrices as the launcher sees them: pointer_offset elements into their allocations.
  Input* a_ptr() { return device_a.data() + gemm_case.layout.pointer_offset; }
  Input* b_ptr() { return device_b.data() + gemm_case.layout.pointer_offset; }
  float* c_ptr() { return device_c.data() + gemm_case.layout.pointer_offset; }

  GemmArgsOf<Input> args(float beta) {
    const GemmShape& s = gemm_case.shape;
    return GemmArgsOf<Input>{s.m,     s.n, s.k,  gemm_case.alpha, a_ptr(), lda,
                             b_ptr(), ldb, beta, c_ptr(),         ldc};
  }

  // Uploads a host matrix behind pointer_offset elements of padding.
  DeviceBuffer<Input> upload(const std::vector<float>& host) const {
    const std::vector<Input> values = converted<Input>(host);
    DeviceBuffer<Input> buffer(host.size() +
                               static_cast<std::size_t>(gemm_case.layout.pointer_offset));
    CUDA_CHECK(cudaMemcpy(buffer.data() + gemm_case.layout.pointer_offset, values.data(),
                          values.size() * sizeof(Input), cudaMemcpyHostToDevice));
    return buffer;
  }

  std::vector<float> download_c() const {
    std::vector<float> host(c0.size());
    CUDA_CHECK(cudaMemcpy(host.data(), device_c.data() + gemm_case.layout.pointer_offset,
                          host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }

  HostGemmInputs host_inputs(float beta) const {
    return HostGemmInputs{gemm_case.shape, gemm_case.alpha, beta, a, lda, b, ldb, c0, ldc};
  }

  bool full_reference() const {
    const GemmShape& s = gemm_case.shape;
    return static_cast<std::int64_t>(s.m) * s.n * s.k <= options.full_reference_limit;
  }

  // cuBLAS's product (beta = 0) for every element, with magnitudes from a second cuBLAS product of
  // |A| and |B|.
  ReferenceValues cublas_product() {
    const GemmShape& s = gemm_case.shape;
    CublasHandle handle;
    DeviceBuffer<float> result(c0.size());
    cublas_product_call(handle, GemmArgsOf<Input>{s.m, s.n, s.k, gemm_case.alpha, a_ptr(), lda,
                                                  b_ptr(), ldb, 0.0f, result.data(), ldc});
    const std::vector<Input> abs_a = converted<Input>(absolute_values(a)),
                             abs_b = converted<Input>(absolute_values(b));
    DeviceBuffer<Input> device_abs_a{std::span<const Input>(abs_a)},
        device_abs_b{std::span<const Input>(abs_b)};
    DeviceBuffer<float> abs_product(c0.size());
    cublas_product_call(
        handle, GemmArgsOf<Input>{s.m, s.n, s.k, std::fabs(gemm_case.alpha), device_abs_a.data(),
                                  lda, device_abs_b.data(), ldb, 0.0f, abs_product.data(), ldc});
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> values = result.to_host(), magnitudes = abs_product.to_host();
    ReferenceValues ref;
    ref.m = s.m;
    ref.n = s.n;
    ref.value.resize(static_cast<std::size_t>(s.m) * s.n);
    ref.magnitude.resize(ref.value.size());
    for (int i = 0; i < s.m; ++i) {
      for (int j = 0; j < s.n; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * ldc + j;
        ref.value[static_cast<std::size_t>(i) * s.n + j] = values[at];
        ref.magnitude[static_cast<std::size_t>(i) * s.n + j] = magnitudes[at];
      }
    }
    return ref;
  }

  // The product alpha * A * B (beta = 0): every element on the CPU for small problems; sampled
  // elements on the CPU and every element from cuBLAS for large ones.
  References product_references() {
    References refs;
    const GemmShape& s = gemm_case.shape;
    if (full_reference()) {
      refs.exact = reference_gemm(host_inputs(0.0f));
      return refs;
    }
    refs.exact = reference_gemm_at(
        host_inputs(0.0f),
        sample_positions(s.m, s.n, options.sampled_elements, derive_seed(seed, "samples")));
    refs.cublas = cublas_product();
    // cuBLAS is only trusted as a reference after it agrees with the CPU on the samples.
    std::vector<float> cublas_c(c0.size());
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j)
        cublas_c[static_cast<std::size_t>(i) * ldc + j] =
            static_cast<float>(refs.cublas->value[static_cast<std::size_t>(i) * s.n + j]);
    const GemmComparison cublas_vs_cpu = compare_gemm(cublas_c, ldc, refs.exact, s.k, tolerance());
    if (!cublas_vs_cpu.passed()) {
      throw std::runtime_error("the cuBLAS reference disagrees with the CPU reference: " +
                               cublas_vs_cpu.describe());
    }
    return refs;
  }

  // The bound a result of this precision is held to against the CPU.
  static GemmTolerance tolerance() { return input_tolerance<Input>(); }

  // The result against the unrounded inputs, on sampled elements (BF16 and FP16 only).
  void measure_rounding_cost(const std::vector<float>& c) {
    if constexpr (kBf16) {
      const GemmShape& s = gemm_case.shape;
      const HostGemmInputs unrounded{
          s, gemm_case.alpha, 0.0f, unrounded_a, lda, unrounded_b, ldb, c0, ldc};
      const ReferenceValues ref = reference_gemm_at(
          unrounded, sample_positions(s.m, s.n, 256, derive_seed(seed, "rounding samples")));
      rounding_cost = compare_gemm(c, ldc, ref, s.k).relative_l2;
    }
  }

  References with_beta(const References& product, float beta) const {
    References refs;
    refs.exact = add_scaled_c(product.exact, beta, c0, ldc);
    if (product.cublas) refs.cublas = add_scaled_c(*product.cublas, beta, c0, ldc);
    return refs;
  }
};

template <class Input>
BasicGemmVerifier<Input>::BasicGemmVerifier(const GemmCase& gemm_case, std::uint64_t seed,
                                            GemmCheckOptions options)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.gemm_case = gemm_case;
  st.seed = seed;
  st.options = options;
  const GemmShape& s = gemm_case.shape;
  const GemmLayout& layout = gemm_case.layout;
  if (layout.lda_padding < 0 || layout.ldb_padding < 0 || layout.ldc_padding < 0 ||
      layout.pointer_offset < 0) {
    throw std::invalid_argument("GemmVerifier: negative leading-dimension padding in " +
                                gemm_case.label());
  }
  const GemmProblem problem{s, layout};
  st.lda = problem.lda();
  st.ldb = problem.ldb();
  st.ldc = problem.ldc();
  // Whole rows are allocated, padding included, so that every row has the same stride.
  st.a.resize(static_cast<std::size_t>(s.m) * st.lda);
  st.b.resize(static_cast<std::size_t>(s.k) * st.ldb);
  st.c0.resize(static_cast<std::size_t>(s.m) * st.ldc);
  fill_uniform(st.a, derive_seed(seed, "A"));
  fill_uniform(st.b, derive_seed(seed, "B"));
  fill_uniform(st.c0, derive_seed(seed, "C"));
  if constexpr (State::kBf16) {
    // The GPU reads BF16 or FP16: the reference multiplies exactly those values.
    st.unrounded_a = st.a;
    st.unrounded_b = st.b;
    std::transform(st.a.begin(), st.a.end(), st.a.begin(), round_to_input<Input>);
    std::transform(st.b.begin(), st.b.end(), st.b.begin(), round_to_input<Input>);
  }
  st.device_a = st.upload(st.a);
  st.device_b = st.upload(st.b);
  st.device_c =
      DeviceBuffer<float>(st.c0.size() + static_cast<std::size_t>(gemm_case.layout.pointer_offset));

  std::ostringstream text;
  const std::int64_t elements = static_cast<std::int64_t>(s.m) * s.n;
  if (st.full_reference()) {
    text << "CPU reference (all " << elements << " elements)";
  } else {
    text
        << "CPU reference ("
        << sample_positions(s.m, s.n, options.sampled_elements, derive_seed(seed, "samples")).size()
        << " sampled elements) + cuBLAS (all " << elements << " elements)";
  }
  st.description = text.str();
}

template <class Input>
BasicGemmVerifier<Input>::~BasicGemmVerifier() = default;

template <class Input>
const std::string& BasicGemmVerifier<Input>::reference_description() const {
  return state_->description;
}

template <class Input>
std::uint64_t BasicGemmVerifier<Input>::seed() const {
  return state_->seed;
}

template <class Input>
double BasicGemmVerifier<Input>::rounding_cost() const {
  return state_->rounding_cost;
}

namespace {

// Compares with the CPU reference and, for large problems, with cuBLAS too; keeps the worse.
GemmComparison compare_all(const std::vector<float>& c, int ldc, const References& refs, int k,
                           GemmTolerance tolerance) {
  GemmComparison exact = compare_gemm(c, ldc, refs.exact, k, tolerance);
  if (!refs.cublas || !exact.passed()) return exact;
  // cuBLAS is itself float32: the per-element bound doubles and the L2 bound allows both errors.
  const GemmTolerance both{2.0 * tolerance.error_factor, 2.0 * tolerance.l2_factor,
                           2.0 * tolerance.bias_factor};
  GemmComparison against_cublas = compare_gemm(c, ldc, *refs.cublas, k, both);
  return against_cublas.passed() ? exact : against_cublas;
}

}  // namespace

template <class Input>
GemmCheckReport BasicGemmVerifier<Input>::check(GemmLauncherOf<Input> launch) {
  State& st = *state_;
  GemmCheckReport report;
  const GemmShape& s = st.gemm_case.shape;
  try {
    // 1. Write check: poisoned C, beta = 0.
    poison_device(st.device_c.data(), st.device_c.bytes());
    launch(st.args(0.0f), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> c = st.download_c();
    bool nothing_written = true;
    for (int i = 0; i < s.m && nothing_written; ++i)
      for (int j = 0; j < s.n && nothing_written; ++j)
        nothing_written = is_poison(c[static_cast<std::size_t>(i) * st.ldc + j]);
    if (nothing_written) {
      report.outcome = CheckOutcome::kNotImplemented;
      report.message = "never written: not implemented yet";
      report.write_check.checked = report.write_check.unwritten =
          static_cast<std::int64_t>(s.m) * s.n;
      report.value_check = report.write_check;
      return report;
    }
    report.write_check = compare_all(c, st.ldc, st.write_references(), s.k, State::tolerance());
    st.measure_rounding_cost(c);
    report.padding_changes = count_padding_changes(poisoned_host(c.size()), c, s.m, s.n, st.ldc);
    if (!report.write_check.passed() || report.padding_changes > 0) {
      report.outcome = CheckOutcome::kFailed;
      report.message = "beta = 0 on a NaN-poisoned C: " + report.write_check.describe();
      if (report.write_check.non_finite > 0)
        report.message += " (NaN written: was C read although beta = 0?)";
      if (report.padding_changes > 0) {
        report.message += "; " + std::to_string(report.padding_changes) +
                          " padding elements beyond column n written";
      }
      report.value_check = report.write_check;
      return report;
    }
    // 2. Value check: random C, the case's beta.
    if (st.gemm_case.beta != 0.0f) {
      CUDA_CHECK(cudaMemcpy(st.c_ptr(), st.c0.data(), st.c0.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
      launch(st.args(st.gemm_case.beta), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      c = st.download_c();
      report.value_check = compare_all(c, st.ldc, st.value_references(), s.k, State::tolerance());
      report.padding_changes = count_padding_changes(st.c0, c, s.m, s.n, st.ldc);
      if (!report.value_check.passed() || report.padding_changes > 0) {
        report.outcome = CheckOutcome::kFailed;
        report.message =
            "beta = " + std::to_string(st.gemm_case.beta) + ": " + report.value_check.describe();
        if (report.padding_changes > 0) {
          report.message += "; " + std::to_string(report.padding_changes) +
                            " padding elements beyond column n written";
        }
        return report;
      }
    } else {
      report.value_check = report.write_check;
    }
    report.outcome = CheckOutcome::kPassed;
    report.message = report.value_check.describe();
  } catch (const std::exception& error) {
    report.outcome = CheckOutcome::kFailed;
    report.message = std::string("error: ") + error.what();
    // A fault inside a kernel leaves the context unusable; clear what can be cleared.
    (void)cudaGetLastError();
  }
  return report;
}

template class BasicGemmVerifier<float>;
template class BasicGemmVerifier<__nv_bfloat16>;
template class BasicGemmVerifier<__half>;

}  // namespace cudalabs
