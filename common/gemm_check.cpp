#include "common/gemm_check.h"

#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/drawn_reference.h"
#include "common/gemm_device_compare.h"
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
  ReferenceValues exact;   // CPU, all elements or samples
  bool on_device = false;  // and every element against cuBLAS's product, on the GPU
};

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
  bool on_device = false;  // a large problem: inputs drawn on the GPU, C compared there
  // Small problems: the inputs on the host (rounded for BF16 and FP16), the unrounded ones beside.
  std::vector<float> a, b, c0;
  std::vector<float> unrounded_a, unrounded_b;
  // Large problems: the draws the GPU's inputs are, for the CPU's samples.
  DrawnMatrix drawn_a, drawn_b, drawn_c;
  DeviceBuffer<float> device_c0;  // the random C, C's layout: restores C for the value check
  DeviceBuffer<float> device_product, device_magnitude;  // cuBLAS: alpha A B and |alpha| |A| |B|
  std::vector<std::int64_t> positions;                   // the CPU's samples
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

  std::size_t offset() const { return static_cast<std::size_t>(gemm_case.layout.pointer_offset); }
  std::size_t c_count() const { return static_cast<std::size_t>(gemm_case.shape.m) * ldc; }

  // The matrices as the launcher sees them: pointer_offset elements into their allocations.
  Input* a_ptr() { return device_a.data() + offset(); }
  Input* b_ptr() { return device_b.data() + offset(); }
  float* c_ptr() { return device_c.data() + offset(); }

  GemmArgsOf<Input> args(float beta) {
    const GemmShape& s = gemm_case.shape;
    return GemmArgsOf<Input>{s.m,     s.n, s.k,  gemm_case.alpha, a_ptr(), lda,
                             b_ptr(), ldb, beta, c_ptr(),         ldc};
  }

  // Uploads a host matrix behind pointer_offset elements of padding.
  DeviceBuffer<Input> upload(const std::vector<float>& host) const {
    const std::vector<Input> values = converted<Input>(host);
    DeviceBuffer<Input> buffer(host.size() + offset());
    CUDA_CHECK(cudaMemcpy(buffer.data() + offset(), values.data(), values.size() * sizeof(Input),
                          cudaMemcpyHostToDevice));
    return buffer;
  }

  // Draws a matrix of `count` elements on the GPU behind pointer_offset elements of padding: the
  // values fill_uniform would draw with `matrix_seed`, rounded to T.
  template <class T>
  DeviceBuffer<T> drawn(std::size_t count, std::uint64_t matrix_seed) const {
    DeviceBuffer<T> buffer(count + offset());
    fill_uniform_device(buffer.data() + offset(), count, matrix_seed);
    return buffer;
  }

  std::vector<float> download_c() const {
    std::vector<float> host(c0.size());
    CUDA_CHECK(cudaMemcpy(host.data(), device_c.data() + offset(), host.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    return host;
  }

  HostGemmInputs host_inputs(float beta) const {
    return HostGemmInputs{gemm_case.shape, gemm_case.alpha, beta, a, lda, b, ldb, c0, ldc};
  }

  bool full_reference() const {
    const GemmShape& s = gemm_case.shape;
    return static_cast<std::int64_t>(s.m) * s.n * s.k <= options.full_reference_limit;
  }

  // cuBLAS's product (beta = 0) for every element into device_product, with magnitudes from a
  // second cuBLAS product of |A| and |B| into device_magnitude; both in C's layout.
  void cublas_product() {
    const GemmShape& s = gemm_case.shape;
    CublasHandle handle;
    device_product = DeviceBuffer<float>(c_count());
    device_magnitude = DeviceBuffer<float>(c_count());
    cublas_product_call(handle, GemmArgsOf<Input>{s.m, s.n, s.k, gemm_case.alpha, a_ptr(), lda,
                                                  b_ptr(), ldb, 0.0f, device_product.data(), ldc});
    DeviceBuffer<Input> abs_a(device_a.size()), abs_b(device_b.size());
    absolute_device(a_ptr(), abs_a.data() + offset(), device_a.size() - offset());
    absolute_device(b_ptr(), abs_b.data() + offset(), device_b.size() - offset());
    cublas_product_call(
        handle,
        GemmArgsOf<Input>{s.m, s.n, s.k, std::fabs(gemm_case.alpha), abs_a.data() + offset(), lda,
                          abs_b.data() + offset(), ldb, 0.0f, device_magnitude.data(), ldc});
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  // The product alpha * A * B (beta = 0): every element on the CPU for small problems; sampled
  // elements on the CPU and every element from cuBLAS for large ones.
  References product_references() {
    References refs;
    const GemmShape& s = gemm_case.shape;
    if (!on_device) {
      refs.exact = reference_gemm(host_inputs(0.0f));
      return refs;
    }
    refs.exact =
        drawn_gemm_reference(s, gemm_case.alpha, drawn_a, drawn_b, 0.0f, drawn_c, positions);
    cublas_product();
    refs.on_device = true;
    // cuBLAS is only trusted as a reference after it agrees with the CPU on the samples.
    const std::vector<float> cublas_samples =
        gather_gemm_elements(device_product.data(), s.n, ldc, positions);
    const GemmComparison cublas_vs_cpu =
        compare_gemm_values(cublas_samples, refs.exact, s.k, tolerance());
    if (!cublas_vs_cpu.passed()) {
      throw std::runtime_error("the cuBLAS reference disagrees with the CPU reference: " +
                               cublas_vs_cpu.describe());
    }
    return refs;
  }

  // The bound a result of this precision is held to against the CPU.
  static GemmTolerance tolerance() { return input_tolerance<Input>(); }

  // The result against the unrounded inputs, on sampled elements (BF16 and FP16 only).
  void measure_rounding_cost(const std::vector<float>* host_c) {
    if constexpr (kBf16) {
      const GemmShape& s = gemm_case.shape;
      std::vector<std::int64_t> at =
          sample_positions(s.m, s.n, 256, derive_seed(seed, "rounding samples"));
      ReferenceValues ref;
      if (on_device) {
        DrawnMatrix unrounded_a_draws = drawn_a, unrounded_b_draws = drawn_b;
        unrounded_a_draws.rounding = unrounded_b_draws.rounding = nullptr;
        ref = drawn_gemm_reference(s, gemm_case.alpha, unrounded_a_draws, unrounded_b_draws, 0.0f,
                                   drawn_c, at);
      } else {
        const HostGemmInputs unrounded{
            s, gemm_case.alpha, 0.0f, unrounded_a, lda, unrounded_b, ldb, c0, ldc};
        ref = reference_gemm_at(unrounded, at);
      }
      const std::vector<float> got =
          host_c ? values_at(*host_c, ref) : gather_gemm_elements(c_ptr(), s.n, ldc, ref.positions);
      rounding_cost = compare_gemm_values(got, ref, s.k).relative_l2;
    } else {
      (void)host_c;
    }
  }

  std::vector<float> values_at(const std::vector<float>& c, const ReferenceValues& ref) const {
    std::vector<float> got(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
      got[i] = c[static_cast<std::size_t>(ref.row_of(i)) * ldc + ref.col_of(i)];
    return got;
  }

  References with_beta(const References& product, float beta) const {
    References refs;
    refs.on_device = product.on_device;
    if (!on_device) {
      refs.exact = add_scaled_c(product.exact, beta, c0, ldc);
    } else {
      refs.exact = product.exact;
      for (std::size_t i = 0; i < refs.exact.size(); ++i) {
        const double c_ij = drawn_c.at(refs.exact.row_of(i), refs.exact.col_of(i));
        refs.exact.value[i] += static_cast<double>(beta) * c_ij;
        refs.exact.magnitude[i] += std::fabs(static_cast<double>(beta)) * std::fabs(c_ij);
      }
    }
    return refs;
  }

  // C (after a launch with `beta`) against the references: the CPU's first, then, for a large
  // problem, every element against cuBLAS on the GPU; the worse verdict, and the padding elements
  // changed from what they held before (the poison, or the random C).
  GemmComparison compare(const References& refs, float beta, std::int64_t& padding_changes) {
    const GemmShape& s = gemm_case.shape;
    if (!on_device) {
      const std::vector<float> c = download_c();
      padding_changes =
          count_padding_changes(beta == 0.0f ? poisoned_host(c.size()) : c0, c, s.m, s.n, ldc);
      if (beta == 0.0f) measure_rounding_cost(&c);
      return compare_gemm(c, ldc, refs.exact, s.k, tolerance());
    }
    const float* padding_before = beta == 0.0f ? nullptr : device_c0.data() + offset();
    const DeviceGemmReference device_ref{
        s.m, s.n, ldc, device_product.data(), device_magnitude.data(), device_c0.data() + offset(),
        beta};
    // cuBLAS is itself float32: the per-element bound doubles and the L2 bound allows both errors.
    const GemmTolerance t = tolerance();
    const GemmTolerance both{2.0 * t.error_factor, 2.0 * t.l2_factor, 2.0 * t.bias_factor};
    const DeviceGemmComparison everything =
        compare_gemm_device(c_ptr(), device_ref, s.k, both, padding_before);
    padding_changes = everything.padding_changes;
    if (beta == 0.0f) measure_rounding_cost(nullptr);
    const GemmComparison exact = compare_gemm_values(
        gather_gemm_elements(c_ptr(), s.n, ldc, refs.exact.positions), refs.exact, s.k, t);
    // Unwritten elements are counted over all of C; otherwise the CPU's verdict first, as on the
    // host.
    if (everything.comparison.unwritten > 0) return everything.comparison;
    if (!exact.passed()) return exact;
    return everything.comparison.passed() ? exact : everything.comparison;
  }

  // True when no element of C was written (C poisoned before the launch): a TODO kernel.
  bool nothing_written() {
    const GemmShape& s = gemm_case.shape;
    if (on_device) {
      const DeviceGemmReference count_only{s.m, s.n, ldc};
      return compare_gemm_device(c_ptr(), count_only, s.k, {}).comparison.nothing_written();
    }
    const std::vector<float> c = download_c();
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j)
        if (!is_poison(c[static_cast<std::size_t>(i) * ldc + j])) return false;
    return true;
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
  st.on_device = !st.full_reference();
  // Whole rows are allocated, padding included, so that every row has the same stride.
  const std::size_t a_count = static_cast<std::size_t>(s.m) * st.lda;
  const std::size_t b_count = static_cast<std::size_t>(s.k) * st.ldb;
  const std::uint64_t seed_a = derive_seed(seed, "A"), seed_b = derive_seed(seed, "B"),
                      seed_c = derive_seed(seed, "C");
  if (st.on_device) {
    // Drawn where they are used: the same values the host would draw, rounded as it would round.
    float (*rounding)(float) = State::kBf16 ? &round_to_input<Input> : nullptr;
    st.drawn_a = DrawnMatrix{seed_a, 0, st.lda, rounding};
    st.drawn_b = DrawnMatrix{seed_b, 0, st.ldb, rounding};
    st.drawn_c = DrawnMatrix{seed_c, 0, st.ldc, nullptr};
    st.device_a = st.template drawn<Input>(a_count, seed_a);
    st.device_b = st.template drawn<Input>(b_count, seed_b);
    st.device_c0 = st.template drawn<float>(st.c_count(), seed_c);
    st.positions =
        sample_positions(s.m, s.n, options.sampled_elements, derive_seed(seed, "samples"));
  } else {
    st.a.resize(a_count);
    st.b.resize(b_count);
    st.c0.resize(st.c_count());
    fill_uniform(st.a, seed_a);
    fill_uniform(st.b, seed_b);
    fill_uniform(st.c0, seed_c);
    if constexpr (State::kBf16) {
      // The GPU reads BF16 or FP16: the reference multiplies exactly those values.
      st.unrounded_a = st.a;
      st.unrounded_b = st.b;
      std::transform(st.a.begin(), st.a.end(), st.a.begin(), round_to_input<Input>);
      std::transform(st.b.begin(), st.b.end(), st.b.begin(), round_to_input<Input>);
    }
    st.device_a = st.upload(st.a);
    st.device_b = st.upload(st.b);
  }
  st.device_c = DeviceBuffer<float>(st.c_count() + st.offset());

  std::ostringstream text;
  const std::int64_t elements = static_cast<std::int64_t>(s.m) * s.n;
  if (!st.on_device) {
    text << "CPU reference (all " << elements << " elements)";
  } else {
    text << "CPU reference (" << st.positions.size() << " sampled elements) + cuBLAS (all "
         << elements << " elements)";
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

template <class Input>
GemmCheckReport BasicGemmVerifier<Input>::check(GemmLauncherOf<Input> launch) {
  State& st = *state_;
  GemmCheckReport report;
  try {
    // 1. Write check: poisoned C, beta = 0.
    poison_device(st.device_c.data(), st.device_c.bytes());
    launch(st.args(0.0f), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (st.nothing_written()) {
      const GemmShape& s = st.gemm_case.shape;
      report.outcome = CheckOutcome::kNotImplemented;
      report.message = "never written: not implemented yet";
      report.write_check.checked = report.write_check.unwritten =
          static_cast<std::int64_t>(s.m) * s.n;
      report.value_check = report.write_check;
      return report;
    }
    report.write_check = st.compare(st.write_references(), 0.0f, report.padding_changes);
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
      if (st.on_device) {
        CUDA_CHECK(cudaMemcpy(st.c_ptr(), st.device_c0.data() + st.offset(),
                              st.c_count() * sizeof(float), cudaMemcpyDeviceToDevice));
      } else {
        CUDA_CHECK(cudaMemcpy(st.c_ptr(), st.c0.data(), st.c0.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
      }
      launch(st.args(st.gemm_case.beta), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      report.value_check =
          st.compare(st.value_references(), st.gemm_case.beta, report.padding_changes);
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
