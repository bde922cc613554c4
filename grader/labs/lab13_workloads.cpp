// Lab 13's timed and profiled problems. Each workload draws pools of random inputs once (from its
// first input set's seed: both sides of a timed pair see the same) and puts them in the runner once
// per round; each set reads windows of them at random offsets, so that no two calls see the same
// operands. Every set's output is checked: every element written and finite, each softmax row
// summing to 1 within its bound and sampled rows element by element, sampled attention rows
// against the CPU in double (reference.h's bounds). The calls: lab13_remote.h.
#include "common/random_fill.h"
#include "grader/labs/lab13_remote.h"
#include "grader/labs/lab13_rules.h"
#include "grader/labs/lab13_shape.h"
#include "grader/referee/given_variants.h"
#include "grader/referee/problem_flags.h"
#include "grader/referee/remote_workspace.h"
#include "grader/referee/workload.h"
#include "labs/13_attention/lab.h"
#include "labs/13_attention/reference.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace grader::referee {
namespace {

constexpr std::size_t kSlackBytes = std::size_t{256} << 20;
constexpr int kSampledRows = 8;

std::int64_t as_int(std::size_t value) {
  return static_cast<std::int64_t>(value);
}

std::string wrong(const std::string& variant, const std::string& problem, std::size_t set,
                  std::size_t sets, const std::string& what) {
  return "wrong result of " + variant + " on " + problem + " (input set " +
         std::to_string(set + 1) + " of " + std::to_string(sets) + "): " + what;
}

// ---- Softmax: rows of random floats in [-10, 10) ----

class SoftmaxWorkload : public Workload {
 public:
  SoftmaxWorkload(std::string variant, int rows, int columns)
      : variant_(std::move(variant)), rows_(rows), columns_(columns) {}
  std::string problem() const override {
    return std::to_string(rows_) + "x" + std::to_string(columns_);
  }
  double prepared_work() const override {
    return 8.0 * count() * offsets_.size();
  }  // read and written
  std::string unit() const override { return "GB/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override { return count() * sizeof(float); }

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    const std::size_t slack = kSlackBytes / sizeof(float);
    if (pool_.empty()) {
      pool_seed_ = cudalabs::derive_seed(seed, "pool");
      pool_.resize(count() + slack);
      cudalabs::fill_uniform(pool_, pool_seed_, -10.0f, 10.0f);
    }
    // Put once: the workload's warm-ups and rounds read windows of it.
    const std::int64_t pool =
        runner
            .put_kept(variant_ + " softmax pool " + std::to_string(pool_seed_), pool_.data(),
                      pool_.size() * sizeof(float))
            .id;
    std::mt19937_64 random(cudalabs::derive_seed(seed, "windows"));
    offsets_.clear();
    outputs_.clear();
    samples_ = seed;
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      std::size_t offset = random() % slack;
      if (s % 2 == 0) offset -= offset % 4;  // even sets 16-byte aligned, odd sets anywhere
      offsets_.push_back(offset);
      outputs_.push_back(runner.put_poisoned(count() * sizeof(float), s % 2 == 0 ? 0 : 4));
      calls.push_back(
          remote::to_call(lab13_remote::Softmax{.variant = variant_,
                                                .rows = rows_,
                                                .columns = columns_,
                                                .input = {pool, as_int(offset * sizeof(float))},
                                                .output = {outputs_.back().id, 0}}));
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    std::vector<float> got(count());
    std::mt19937_64 random(cudalabs::derive_seed(samples_, "rows"));
    for (std::size_t s = 0; s < offsets_.size(); ++s) {
      std::memcpy(got.data(), runner.get(outputs_[s], "output").data(), got.size() * sizeof(float));
      const float* input = pool_.data() + offsets_[s];
      auto fail = [&](const std::string& what) {
        throw std::runtime_error(wrong(variant_, problem(), s, offsets_.size(), what));
      };
      // Every row: each output written, in [0, 1], and the row's sum 1 within the bound of its
      // outputs' errors (each output's bound grows with its distance from the row's maximum).
      long long bad_row = -1;
#pragma omp parallel for schedule(static) reduction(max : bad_row)
      for (int r = 0; r < rows_; ++r) {
        const float* in = input + static_cast<std::size_t>(r) * columns_;
        const float* out = got.data() + static_cast<std::size_t>(r) * columns_;
        const auto [low, high] = std::minmax_element(in, in + columns_);
        double sum = 0.0;
        bool fine = true;
        for (int c = 0; c < columns_; ++c) {
          fine = fine && out[c] >= 0.0f && out[c] <= 1.0f;  // false for NaN and the poison
          sum += out[c];
        }
        const double bound =
            lab13::softmax_relative_bound(columns_, static_cast<double>(*high) - *low) +
            columns_ * (0x1.0p-120 + 0x1.0p-52);
        if (!fine || !(std::fabs(sum - 1.0) <= bound)) bad_row = std::max<long long>(bad_row, r);
      }
      if (bad_row >= 0)
        fail("row " + std::to_string(bad_row) +
             " is not a softmax (an output never written, outside [0, 1], or a sum off 1)");
      // Sampled rows, element by element against the reference in double.
      for (int sample = 0; sample < kSampledRows; ++sample) {
        const int r = sample == 0 ? rows_ - 1 : static_cast<int>(random() % rows_);
        const std::span<const float> row(input + static_cast<std::size_t>(r) * columns_, columns_);
        const std::vector<double> expected = lab13::reference_softmax_row(row);
        const double row_max = *std::max_element(row.begin(), row.end());
        for (int c = 0; c < columns_; ++c) {
          const double value = got[static_cast<std::size_t>(r) * columns_ + c];
          const double bound = lab13::softmax_error_bound(columns_, row_max - row[c], expected[c]);
          if (!(std::fabs(value - expected[c]) <= bound))
            fail("row " + std::to_string(r) + " column " + std::to_string(c) + ": got " +
                 std::to_string(value) + ", expected " + std::to_string(expected[c]));
        }
      }
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    return {{"count", static_cast<double>(count())}, {"bytes", 8.0 * count()}};
  }

 private:
  std::size_t count() const {
    return static_cast<std::size_t>(rows_) * columns_;
  }
  std::string variant_;
  int rows_, columns_;
  std::vector<float> pool_;
  std::uint64_t pool_seed_ = 0;
  std::vector<std::size_t> offsets_;
  std::vector<RemoteBuffer> outputs_;
  std::uint64_t samples_ = 0;
};

// ---- Attention: Q and K in [-2, 2), V in [-1, 1), as BF16 ----

class AttentionWorkload : public Workload {
 public:
  AttentionWorkload(std::string variant, lab13::AttentionShape shape)
      : variant_(std::move(variant)), shape_(shape), scale_(lab13::default_scale(shape.head_dim)) {}
  std::string problem() const override { return shape_.label(); }
  double prepared_work() const override {
    return shape_.flops() * static_cast<double>(sets_.size());
  }
  std::string unit() const override { return "GFLOP/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override { return shape_.elements() * sizeof(__nv_bfloat16); }

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    const std::size_t slack = kSlackBytes / 4 / sizeof(__nv_bfloat16);
    if (q_.empty()) {
      pool_seed_ = seed;
      const std::size_t size = shape_.elements() + slack;
      q_ = lab13::bf16_inputs(size, -2.0f, 2.0f, cudalabs::derive_seed(seed, "q"), q_float_);
      k_ = lab13::bf16_inputs(size, -2.0f, 2.0f, cudalabs::derive_seed(seed, "k"), k_float_);
      v_ = lab13::bf16_inputs(size, -1.0f, 1.0f, cudalabs::derive_seed(seed, "v"), v_float_);
    }
    // Put once: the workload's warm-ups and rounds read windows of them.
    const std::string key = variant_ + " " + problem() + " " + std::to_string(pool_seed_);
    const std::int64_t pools[] = {runner.put_kept(key + " q", q_.data(), q_.size() * 2).id,
                                  runner.put_kept(key + " k", k_.data(), k_.size() * 2).id,
                                  runner.put_kept(key + " v", v_.data(), v_.size() * 2).id};
    const std::size_t workspace =
        remote_workspace_bytes(runner,
                               remote::to_call(lab13_remote::with_shape(
                                   lab13_remote::AttentionWorkspace{.variant = variant_}, shape_)),
                               lab13_rules::workspace_cap(shape_), problem());
    std::mt19937_64 random(cudalabs::derive_seed(seed, "windows"));
    sets_.clear();
    samples_ = seed;
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      Set set;
      for (std::size_t& offset : set.offsets)
        offset = random() % slack / 8 * 8;  // lab.h: 16-byte aligned
      set.o = runner.put_poisoned(shape_.elements() * sizeof(__nv_bfloat16), 0);
      // The workspace not poisoned: every timed call's result is checked.
      const lab13_remote::Attention call{
          .variant = variant_,
          .workspace_bytes = as_int(workspace),
          .workspace_present = workspace > 0,
          .workspace_poisoned = 0,
          .scale = scale_,
          .q = {pools[0], as_int(set.offsets[0] * sizeof(__nv_bfloat16))},
          .k = {pools[1], as_int(set.offsets[1] * sizeof(__nv_bfloat16))},
          .v = {pools[2], as_int(set.offsets[2] * sizeof(__nv_bfloat16))},
          .o = {set.o.id, 0}};
      calls.push_back(remote::to_call(lab13_remote::with_shape(call, shape_)));
      sets_.push_back(set);
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    std::vector<__nv_bfloat16> got(shape_.elements());
    std::mt19937_64 random(cudalabs::derive_seed(samples_, "rows"));
    const long long heads = shape_.heads_total();
    const int s = shape_.sequence, d = shape_.head_dim;
    for (std::size_t i = 0; i < sets_.size(); ++i) {
      const Set& set = sets_[i];
      std::memcpy(got.data(), runner.get(set.o, "o").data(), got.size() * sizeof(__nv_bfloat16));
      auto fail = [&](const std::string& what) {
        throw std::runtime_error(wrong(variant_, problem(), i, sets_.size(), what));
      };
      for (std::size_t e = 0; e < got.size(); ++e) {
        if (!std::isfinite(__bfloat162float(got[e])))  // the poison 0xFFFF is a NaN
          fail("output " + std::to_string(e) + " never written or not finite");
      }
      const std::size_t n = shape_.elements();
      const std::span<const float> q(q_float_.data() + set.offsets[0], n),
          k(k_float_.data() + set.offsets[1], n), v(v_float_.data() + set.offsets[2], n);
      for (int sample = 0; sample < kSampledRows; ++sample) {
        const long long head = sample == 0 ? heads - 1 : static_cast<long long>(random() % heads);
        const int query = sample == 0 ? s - 1 : static_cast<int>(random() % s);
        const lab13::AttentionRowReference expected =
            lab13::reference_attention_row(shape_, scale_, q, k, v, head, query);
        const std::size_t base = (static_cast<std::size_t>(head) * s + query) * d;
        for (int c = 0; c < d; ++c) {
          const double value = __bfloat162float(got[base + c]);
          if (!(std::fabs(value - expected.output[c]) <=
                lab13::attention_tolerance(expected, c, s)))
            fail("head " + std::to_string(head) + " query " + std::to_string(query) + " column " +
                 std::to_string(c) + ": got " + std::to_string(value) + ", expected " +
                 std::to_string(expected.output[c]));
        }
      }
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    const double scores =
        static_cast<double>(shape_.heads_total()) * shape_.sequence * shape_.sequence;
    return {{"count", static_cast<double>(shape_.elements())},
            {"bytes", 4.0 * shape_.elements() * sizeof(__nv_bfloat16)},  // Q, K, V and O once
            {"flops", shape_.flops()},
            {"scores", scores}};
  }

 private:
  struct Set {
    std::size_t offsets[3] = {0, 0, 0};  // of Q, K and V in their pools
    RemoteBuffer o;
  };
  std::string variant_;
  lab13::AttentionShape shape_;
  float scale_;
  std::vector<__nv_bfloat16> q_, k_, v_;
  std::uint64_t pool_seed_ = 0;
  std::vector<float> q_float_, k_float_, v_float_;
  std::vector<Set> sets_;
  std::uint64_t samples_ = 0;
};

}  // namespace

// The softmax's --rows R --columns C (default 4096 x 2048); attention's --batch B --heads H
// --sequence S --head-dim D --causal 0|1 (default b1h16s4096d128, not causal).
std::unique_ptr<Workload> make_workload(const std::string& variant,
                                        const std::vector<std::string>& args) {
  if (is_given_variant("softmax_variants", variant)) {
    return std::make_unique<SoftmaxWorkload>(
        variant, static_cast<int>(flag_value(args, "--rows", 4096, 1, 1 << 20)),
        static_cast<int>(flag_value(args, "--columns", 2048, 1, 1 << 20)));
  }
  if (is_given_variant("attention_variants", variant)) {
    lab13::AttentionShape shape;
    shape.batch = static_cast<int>(flag_value(args, "--batch", 1, 1, 64));
    shape.heads = static_cast<int>(flag_value(args, "--heads", 16, 1, 128));
    shape.sequence = static_cast<int>(flag_value(args, "--sequence", 4096, 1, 1 << 16));
    shape.head_dim = static_cast<int>(flag_value(args, "--head-dim", 128, 64, 128));
    if (shape.head_dim != 64 && shape.head_dim != 128)
      throw std::invalid_argument("--head-dim: 64 or 128");
    shape.causal = flag_value(args, "--causal", 0, 0, 1) != 0;
    return std::make_unique<AttentionWorkload>(variant, shape);
  }
  throw std::invalid_argument("lab 13 has no variant '" + variant + "' the grader names");
}

}  // namespace grader::referee
