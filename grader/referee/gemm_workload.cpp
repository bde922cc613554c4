#include "grader/referee/gemm_workload.h"

#include "grader/referee/check_cannot_fail.h"

#include "common/cublas_gemm.h"
#include "common/device_buffer.h"
#include "common/gemm_check.h"
#include "common/gemm_compare.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace grader::referee {

namespace {

constexpr std::size_t kPoolSlack = std::size_t{1} << 20;  // offsets a set's operands start at
constexpr int kSampledElements = 512;

void cublas_product(const cudalabs::CublasHandle& handle, const cudalabs::GemmArgsOf<float>& args) {
  cudalabs::cublas_gemm_row_major(handle, args);
}
void cublas_product(const cudalabs::CublasHandle& handle,
                    const cudalabs::GemmArgsOf<__nv_bfloat16>& args) {
  cudalabs::cublas_gemm_bf16_row_major(handle, args);
}
void cublas_product(const cudalabs::CublasHandle& handle,
                    const cudalabs::GemmArgsOf<__half>& args) {
  cudalabs::cublas_gemm_fp16_row_major(handle, args);
}

template <class Input>
Input to_input(float value) {
  if constexpr (std::is_same_v<Input, float>)
    return value;
  else
    return static_cast<Input>(value);
}

template <class Input>
class GemmWorkload : public Workload {
 public:
  GemmWorkload(GemmPack pack, std::string variant, cudalabs::GemmShape shape)
      : pack_(pack), variant_(std::move(variant)), shape_(shape) {
    cudalabs::validate_gemm_shape(shape_, "the graded GEMM");
  }

  std::string problem() const override { return shape_.label(); }
  double prepared_work() const override {
    return shape_.flops() * static_cast<double>(sets_.size());
  }
  std::string unit() const override { return "GFLOP/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override {
    return (a_elements() + b_elements()) * sizeof(Input) + c_elements() * sizeof(float);
  }

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    make_pool();
    sets_.clear();
    std::mt19937_64 random(seed);
    std::vector<Call> calls;
    // The pool crosses once per runner; each set's A and B are copies of its windows made on the
    // device, so that each call has operands of its own (guarded, as a put's).
    const RemoteBuffer pool =
        runner.put_kept(variant_ + " " + shape_.label() + " gemm pool", pool_input_.data(),
                        pool_input_.size() * sizeof(Input));
    for (int s = 0; s < sets; ++s) {
      Set set;
      set.a_offset = random() % kPoolSlack;
      set.b_offset = random() % kPoolSlack;
      const std::int64_t a =
          runner.put_slice(pool, set.a_offset * sizeof(Input), a_elements() * sizeof(Input), 0).id;
      const std::int64_t b =
          runner.put_slice(pool, set.b_offset * sizeof(Input), b_elements() * sizeof(Input), 0).id;
      set.c = runner.put_poisoned(c_elements() * sizeof(float), 0);
      set.seed = random();
      calls.push_back(pack_(variant_, {.m = shape_.m,
                                       .n = shape_.n,
                                       .k = shape_.k,
                                       .lda = shape_.k,
                                       .ldb = shape_.n,
                                       .ldc = shape_.n,
                                       .alpha = 1.0,
                                       .beta = 0.0,
                                       .a = {a},
                                       .b = {b},
                                       .c = {set.c.id}}));
      sets_.push_back(set);
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    got_.resize(c_elements());  // kept from set to set: one copy of C, no fresh pages
    for (std::size_t s = 0; s < sets_.size(); ++s) {
      runner.get_with(sets_[s].c, "C", [&](const std::uint8_t* bytes) {
        std::memcpy(got_.data(), bytes, got_.size() * sizeof(float));
      });
      const std::string problem = check_set(sets_[s], got_);
      if (!problem.empty())
        throw std::runtime_error("wrong result of " + variant_ + " on " + shape_.label() +
                                 " (input set " + std::to_string(s + 1) + " of " +
                                 std::to_string(sets_.size()) + "): " + problem);
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    const double mnk = static_cast<double>(shape_.m) * shape_.n * shape_.k;
    return {{"m", shape_.m},
            {"n", shape_.n},
            {"k", shape_.k},
            {"mnk", mnk},
            {"flops", 2.0 * mnk},
            {"a_bytes", static_cast<double>(a_elements() * sizeof(Input))},
            {"b_bytes", static_cast<double>(b_elements() * sizeof(Input))},
            {"c_bytes", static_cast<double>(c_elements() * sizeof(float))}};
  }

 private:
  struct Set {
    std::size_t a_offset = 0, b_offset = 0;
    RemoteBuffer c;
    std::uint64_t seed = 0;
  };

  std::size_t a_elements() const { return static_cast<std::size_t>(shape_.m) * shape_.k; }
  std::size_t b_elements() const { return static_cast<std::size_t>(shape_.k) * shape_.n; }
  std::size_t c_elements() const { return static_cast<std::size_t>(shape_.m) * shape_.n; }

  // Random values in [-1, 1), rounded to Input once: a set's operands are windows of the pool at
  // random offsets, so no two sets (or rounds) multiply the same matrices.
  void make_pool() {
    if (!pool_float_.empty()) return;
    pool_float_.resize(std::max(a_elements(), b_elements()) + kPoolSlack);
    cudalabs::fill_uniform(pool_float_,
                           cudalabs::derive_seed(cudalabs::run_seed(), "grader gemm pool"));
    pool_input_.resize(pool_float_.size());
    for (std::size_t i = 0; i < pool_float_.size(); ++i) {
      pool_input_[i] = to_input<Input>(pool_float_[i]);
      pool_float_[i] = static_cast<float>(pool_input_[i]);
    }
  }

  // Empty when right; otherwise what is wrong.
  std::string check_set(const Set& set, const std::vector<float>& got) {
    std::int64_t unwritten = 0, non_finite = 0;
    for (float value : got) {
      unwritten += cudalabs::is_poison(value);
      non_finite += !cudalabs::is_poison(value) && !std::isfinite(value);
    }
    if (unwritten > 0) return std::to_string(unwritten) + " elements of C never written";
    if (non_finite > 0) return std::to_string(non_finite) + " elements of C are NaN or infinite";
    // Every element against cuBLAS, by the relative L2 error (twice the bound: cuBLAS rounds too).
    const cudalabs::GemmTolerance tolerance = cudalabs::input_tolerance<Input>();
    const double u = std::ldexp(1.0, -24);
    const double l2_bound = 2.0 * (tolerance.l2_factor * u * std::sqrt(shape_.k + 2.0) +
                                   tolerance.bias_factor * u * shape_.k);
    // A result of zeros (or of one set's work) is off by a relative error of 1: a bound that met
    // it would be a check that cannot fail, the grader's defect, never a pass.
    if (!(l2_bound < 0.5))
      throw CheckCannotFail("the timed check could not fail: its relative L2 bound is " +
                            std::to_string(l2_bound) + " at k = " + std::to_string(shape_.k));
    const std::vector<float> expected = cublas_reference(set);
    double error = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double difference = static_cast<double>(got[i]) - expected[i];
      error += difference * difference;
      norm += static_cast<double>(expected[i]) * expected[i];
    }
    const double relative = norm > 0.0 ? std::sqrt(error / norm) : std::sqrt(error);
    if (!(relative <= l2_bound))
      return "relative L2 error against cuBLAS " + std::to_string(relative) + " > " +
             std::to_string(l2_bound);
    // Sampled elements against the CPU in double, each by its own bound.
    cudalabs::HostGemmInputs inputs;
    inputs.shape = shape_;
    inputs.a = std::span<const float>(pool_float_.data() + set.a_offset, a_elements());
    inputs.lda = shape_.k;
    inputs.b = std::span<const float>(pool_float_.data() + set.b_offset, b_elements());
    inputs.ldb = shape_.n;
    inputs.ldc = shape_.n;
    const cudalabs::ReferenceValues exact = cudalabs::reference_gemm_at(
        inputs, cudalabs::sample_positions(shape_.m, shape_.n, kSampledElements, set.seed));
    const cudalabs::GemmComparison sampled =
        cudalabs::compare_gemm(got, shape_.n, exact, shape_.k, tolerance);
    if (!sampled.passed()) return sampled.describe();
    return "";
  }

  // cuBLAS on the referee's own copy of the pool (made once), at the set's windows.
  std::vector<float> cublas_reference(const Set& set) {
    if (!handle_) handle_ = std::make_unique<cudalabs::CublasHandle>();
    if (!pool_device_) {
      pool_device_ = std::make_unique<cudalabs::DeviceBuffer<Input>>(
          std::span<const Input>(pool_input_.data(), pool_input_.size()));
      c_device_ = std::make_unique<cudalabs::DeviceBuffer<float>>(c_elements());
    }
    cublas_product(*handle_,
                   cudalabs::GemmArgsOf<Input>{shape_.m, shape_.n, shape_.k, 1.0f,
                                               pool_device_->data() + set.a_offset, shape_.k,
                                               pool_device_->data() + set.b_offset, shape_.n, 0.0f,
                                               c_device_->data(), shape_.n});
    CUDA_CHECK(cudaDeviceSynchronize());
    return c_device_->to_host();
  }

  GemmPack pack_;
  std::string variant_;
  cudalabs::GemmShape shape_;
  std::vector<float> pool_float_;
  std::vector<Input> pool_input_;
  std::vector<Set> sets_;
  std::vector<float> got_;
  std::unique_ptr<cudalabs::CublasHandle> handle_;
  std::unique_ptr<cudalabs::DeviceBuffer<Input>> pool_device_;
  std::unique_ptr<cudalabs::DeviceBuffer<float>> c_device_;
};

int positive_flag(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == text.size() && value >= 1 && value <= 65536) return static_cast<int>(value);
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(flag + ": '" + text + "' is not a size from 1 to 65536");
}

}  // namespace

template <class Input>
std::unique_ptr<Workload> gemm_workload(GemmPack pack, const std::string& variant,
                                        const cudalabs::GemmShape& shape) {
  return std::make_unique<GemmWorkload<Input>>(pack, variant, shape);
}

template std::unique_ptr<Workload> gemm_workload<float>(GemmPack, const std::string&,
                                                        const cudalabs::GemmShape&);
template std::unique_ptr<Workload> gemm_workload<__nv_bfloat16>(GemmPack, const std::string&,
                                                                const cudalabs::GemmShape&);
template std::unique_ptr<Workload> gemm_workload<__half>(GemmPack, const std::string&,
                                                         const cudalabs::GemmShape&);

cudalabs::GemmShape gemm_shape_from(const std::vector<std::string>& args,
                                    cudalabs::GemmShape fallback) {
  cudalabs::GemmShape shape = fallback;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag != "--size" && flag != "--m" && flag != "--n" && flag != "--k") continue;
    if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
    const int value = positive_flag(flag, args[++i]);
    if (flag == "--size")
      shape = {value, value, value};
    else if (flag == "--m")
      shape.m = value;
    else if (flag == "--n")
      shape.n = value;
    else
      shape.k = value;
  }
  return shape;
}

}  // namespace grader::referee
