#include "grader/referee/conv_workload.h"

#include "common/gemm_compare.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_conv.h"
#include "common/reference_gemm.h"
#include "grader/labs/lab08_remote.h"

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace grader::referee {
namespace {

constexpr std::size_t kPoolSlack = 1 << 16;
constexpr int kSampledElements = 1024;

class ConvWorkload : public Workload {
 public:
  ConvWorkload(std::string variant, cudalabs::ConvShape shape, int factor)
      : variant_(std::move(variant)), shape_(shape), factor_(factor) {
    cudalabs::validate_conv_shape(shape_, "the graded convolution");
  }
  std::string problem() const override { return shape_.label(); }
  double prepared_work() const override {
    return shape_.flops() * static_cast<double>(sets_.size());
  }
  std::string unit() const override { return "GFLOP/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override {
    return (shape_.input_elements() + shape_.filter_elements() + shape_.output_elements()) *
           sizeof(float);
  }

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    if (pool_.empty()) {
      pool_.resize(
          static_cast<std::size_t>(std::max(shape_.input_elements(), shape_.filter_elements())) +
          kPoolSlack);
      cudalabs::fill_uniform(pool_,
                             cudalabs::derive_seed(cudalabs::run_seed(), "grader conv pool"));
    }
    std::mt19937_64 random(seed);
    // The pool crosses once per runner; each set's operands are device copies of its windows.
    const RemoteBuffer pool =
        runner.put_kept(variant_ + " conv pool " + std::to_string(pool_.size()), pool_.data(),
                        pool_.size() * sizeof(float));
    const auto output_bytes = static_cast<std::size_t>(shape_.output_elements()) * sizeof(float);
    sets_.clear();
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      Set set{random() % kPoolSlack, random() % kPoolSlack, {}, random()};
      const std::int64_t input = runner
                                     .put_slice(pool, set.input * sizeof(float),
                                                shape_.input_elements() * sizeof(float), 0)
                                     .id;
      const std::int64_t filter = runner
                                      .put_slice(pool, set.filter * sizeof(float),
                                                 shape_.filter_elements() * sizeof(float), 0)
                                      .id;
      set.output = runner.put_poisoned(output_bytes, 0);
      calls.push_back(
          remote::to_call(lab08_remote::conv_call(variant_, shape_, input, filter, set.output.id)));
      sets_.push_back(set);
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    const int rows = static_cast<int>(shape_.output_elements() / shape_.q());
    for (std::size_t s = 0; s < sets_.size(); ++s) {
      const std::vector<std::uint8_t> bytes = runner.get(sets_[s].output, "output");
      std::vector<float> got(static_cast<std::size_t>(shape_.output_elements()));
      std::memcpy(got.data(), bytes.data(), bytes.size());
      std::int64_t unwritten = 0;
      for (float value : got) unwritten += cudalabs::is_poison(value);
      std::string problem = unwritten ? std::to_string(unwritten) + " outputs never written" : "";
      if (problem.empty()) {
        const cudalabs::ReferenceValues exact = cudalabs::reference_conv2d_at(
            shape_, std::span<const float>(pool_.data() + sets_[s].input, shape_.input_elements()),
            std::span<const float>(pool_.data() + sets_[s].filter, shape_.filter_elements()),
            cudalabs::sample_positions(rows, shape_.q(), kSampledElements, sets_[s].seed));
        const cudalabs::GemmComparison comparison = cudalabs::compare_gemm(
            got, shape_.q(), exact, static_cast<int>(shape_.reduction_length()));
        if (!comparison.passed()) problem = comparison.describe();
      }
      if (!problem.empty())
        throw std::runtime_error("wrong result of " + variant_ + " on " + shape_.label() +
                                 " (input set " + std::to_string(s + 1) + "): " + problem);
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    const double taps = static_cast<double>(shape_.reduction_length());
    const double outputs = static_cast<double>(shape_.output_elements());
    return {{"outputs", outputs},
            {"taps", taps},
            {"macs", outputs * taps},
            {"flops", shape_.flops()},
            {"factor", static_cast<double>(factor_)}};
  }

 private:
  struct Set {
    std::size_t input, filter;
    RemoteBuffer output;
    std::uint64_t seed;
  };
  std::string variant_;
  cudalabs::ConvShape shape_;
  int factor_;
  std::vector<float> pool_;
  std::vector<Set> sets_;
};

}  // namespace

std::unique_ptr<Workload> conv_workload(const std::string& variant,
                                        const cudalabs::ConvShape& shape, int factor) {
  return std::make_unique<ConvWorkload>(variant, shape, factor);
}

}  // namespace grader::referee
