// Lab 12's timed and profiled problems. Each workload reads one pool of random inputs, put in the
// runner once per workload; each set reads a window of it at a random offset (from the variant's
// own seeds), so that no two calls sum, scan or count the same array, and the pool's slack (256
// MiB, more than any GPU's L2) keeps one call's cached lines from serving the next. The pool, and
// the totals its checks read, are drawn once for every variant of a family and both sides of a
// timed pair (Workload::share_inputs): the referee's own cost, not the timed one. Even sets start
// on a 16-byte boundary (the vector paths), odd sets anywhere lab.h allows. Every set's output is
// checked: the sum exactly (its pool is integers every order of additions sums exactly:
// lab12_timed_sum.h), the scan value by value, the histogram bin by bin. The calls: lab12_remote.h.
#include "common/random_fill.h"
#include "grader/labs/lab12_remote.h"
#include "grader/labs/lab12_rules.h"
#include "grader/labs/lab12_timed_sum.h"
#include "grader/labs/lab12_window_totals.h"
#include "grader/referee/given_variants.h"
#include "grader/referee/problem_flags.h"
#include "grader/referee/remote_workspace.h"
#include "grader/referee/workload.h"
#include "labs/12_reduce_scan_histogram/lab.h"
#include "labs/12_reduce_scan_histogram/reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

namespace grader::referee {
namespace {

constexpr std::size_t kSlackBytes = std::size_t{256} << 20;

std::int64_t as_int(std::size_t value) {
  return static_cast<std::int64_t>(value);
}

// A pool and the totals its checks read (made at the first check).
template <class T, class Totals>
struct Pool {
  std::vector<T> values;
  std::unique_ptr<Totals> totals;
};

// The last pool of its kind the referee drew, by key (problem and seed): a family's variants and
// both sides of a pair ask for the same one in turn, so one is kept at a time.
template <class T, class Totals>
std::shared_ptr<Pool<T, Totals>> last_pool(const std::string& key,
                                           const std::function<std::vector<T>()>& draw) {
  static std::string last_key;
  static std::shared_ptr<Pool<T, Totals>> last;
  if (!last || key != last_key) {
    last.reset();  // before drawing the next: one pool in memory at a time
    last = std::make_shared<Pool<T, Totals>>();
    last->values = draw();
    last_key = key;
  }
  return last;
}

// A pool of `count` + slack values of T; the windows of the last prepare().
template <class T, class Totals>
class WindowWorkload : public Workload {
 public:
  WindowWorkload(std::string variant, std::size_t count)
      : variant_(std::move(variant)), count_(count), slack_(kSlackBytes / sizeof(T)) {}
  std::string problem() const override {
    std::string text = "n";  // appended, not "n" + ...: g++ 12 warns falsely on that (-Wrestrict)
    return text += std::to_string(count_);
  }
  std::string unit() const override { return "GB/s"; }
  double unit_scale() const override { return 1e9; }
  void share_inputs(std::uint64_t seed) override { shared_seed_ = seed; }

 protected:
  virtual std::vector<T> draw_pool(std::size_t size, std::uint64_t seed) const = 0;

  // The pool in the runner (drawn on first use, or taken from the family's; put once: its
  // warm-ups and rounds read it), and `sets` windows into it.
  std::int64_t put_pool(RemoteRunner& runner, int sets, std::uint64_t seed) {
    if (!pool_) {
      pool_seed_ = shared_seed_ ? cudalabs::derive_seed(*shared_seed_, "pool")
                                : cudalabs::derive_seed(seed, "pool");
      const std::string key = problem() + " pool " + std::to_string(pool_seed_);
      pool_ = last_pool<T, Totals>(key, [&] { return draw_pool(count_ + slack_, pool_seed_); });
    }
    std::mt19937_64 random(cudalabs::derive_seed(seed, "windows"));
    offsets_.clear();
    for (int s = 0; s < sets; ++s) {
      std::size_t offset = random() % slack_;
      if (s % 2 == 0) offset -= offset % (16 / sizeof(T));  // the vector paths
      offsets_.push_back(offset);
    }
    const std::string key = variant_ + " " + problem() + " pool " + std::to_string(pool_seed_);
    return runner.put_kept(key, pool().data(), pool().size() * sizeof(T)).id;
  }

  const std::vector<T>& pool() const { return pool_->values; }
  const Totals& totals() {
    if (!pool_->totals) pool_->totals = std::make_unique<Totals>(pool_->values);
    return *pool_->totals;
  }

  std::string wrong(std::size_t set, const std::string& what) const {
    return "wrong result of " + variant_ + " on " + problem() + " (input set " +
           std::to_string(set + 1) + " of " + std::to_string(offsets_.size()) + "): " + what;
  }

  std::string variant_;
  std::size_t count_, slack_;
  std::optional<std::uint64_t> shared_seed_;
  std::shared_ptr<Pool<T, Totals>> pool_;
  std::uint64_t pool_seed_ = 0;
  std::vector<std::size_t> offsets_;
};

// The inclusive scan's running sums of a pool: prefix[i] = pool[0] + ... + pool[i - 1], modulo
// 2^32.
struct ScanPrefix {
  explicit ScanPrefix(const std::vector<std::uint32_t>& pool) : prefix(pool.size() + 1, 0) {
    const std::vector<std::uint32_t> scanned = lab12::reference_inclusive_scan(pool);
    std::copy(scanned.begin(), scanned.end(), prefix.begin() + 1);
  }
  std::vector<std::uint32_t> prefix;
};

// ---- Sum: +1 and -1 at random places, zeros between (lab12_timed_sum.h) ----

class SumWorkload : public WindowWorkload<float, lab12_rules::SumTotals> {
 public:
  using WindowWorkload::WindowWorkload;
  double prepared_work() const override { return 4.0 * count_ * offsets_.size(); }
  CallBytes least_bytes_per_call() const override { return {4.0 * count_, 4.0}; }
  std::size_t bytes_per_set() const override { return 4096; }  // one float; the pool is shared

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    const std::int64_t pool = put_pool(runner, sets, seed);
    const std::size_t workspace = remote_workspace_bytes(
        runner,
        remote::to_call(lab12_remote::SumWorkspace{.variant = variant_, .count = as_int(count_)}),
        lab12_rules::workspace_cap(count_), problem());
    outputs_.clear();
    std::vector<Call> calls;
    for (std::size_t offset : offsets_) {
      outputs_.push_back(runner.put_poisoned(sizeof(float), 0));
      // The workspace not poisoned: every timed call's result is checked.
      calls.push_back(
          remote::to_call(lab12_remote::Sum{.variant = variant_,
                                            .count = as_int(count_),
                                            .workspace_bytes = as_int(workspace),
                                            .workspace_present = workspace > 0,
                                            .workspace_poisoned = 0,
                                            .input = {pool, as_int(offset * sizeof(float))},
                                            .sum = {outputs_.back().id, 0}}));
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    std::vector<float> got(offsets_.size());
    for (std::size_t s = 0; s < offsets_.size(); ++s)
      std::memcpy(&got[s], runner.get(outputs_[s], "sum").data(), 4);
    const std::int64_t depth = lab12_rules::addition_depth(variant_, count_);
    const lab12_rules::SumTotals& totals = this->totals();
    for (std::size_t s = 0; s < offsets_.size(); ++s) {
      // The window's sum and sum of magnitudes, integers.
      const lab12_rules::SumTotals::Totals window = totals.window(offsets_[s], count_);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &got[s], sizeof bits);
      if (bits == 0xFFFFFFFFu || bits == 0x80000000u)
        throw std::runtime_error(wrong(s, "the sum was never written"));
      const double expected = static_cast<double>(window.sum);
      const double bound =
          lab12_rules::timed_sum_bound(depth, static_cast<double>(window.nonzero), true);
      const double error = std::fabs(static_cast<double>(got[s]) - expected);
      if (!std::isfinite(got[s]) || !(error <= bound)) {
        throw std::runtime_error(wrong(
            s, "got " + std::to_string(got[s]) + ", expected " + std::to_string(expected) +
                   " within " + std::to_string(bound) + " (integer inputs, " +
                   std::to_string(window.nonzero) + " of them nonzero: every order is exact)"));
      }
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    return {{"count", static_cast<double>(count_)}, {"bytes", 4.0 * count_}};
  }

 private:
  std::vector<float> draw_pool(std::size_t size, std::uint64_t seed) const override {
    return lab12_rules::exact_pool(size, lab12_rules::exact_stride(count_), seed);
  }
  std::vector<RemoteBuffer> outputs_;
};

// ---- Inclusive scan: random 32-bit values (the sums wrap) ----

class ScanWorkload : public WindowWorkload<std::uint32_t, ScanPrefix> {
 public:
  using WindowWorkload::WindowWorkload;
  double prepared_work() const override {
    return 8.0 * count_ * offsets_.size();
  }  // read and written
  CallBytes least_bytes_per_call() const override { return {4.0 * count_, 4.0 * count_}; }
  std::size_t bytes_per_set() const override { return count_ * sizeof(std::uint32_t); }

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    const std::int64_t pool = put_pool(runner, sets, seed);
    const std::size_t workspace = remote_workspace_bytes(
        runner,
        remote::to_call(lab12_remote::ScanWorkspace{.variant = variant_, .count = as_int(count_)}),
        lab12_rules::workspace_cap(count_), problem());
    outputs_.clear();
    std::vector<Call> calls;
    for (std::size_t s = 0; s < offsets_.size(); ++s) {
      // Odd sets: the output 4 bytes past a 16-byte boundary too.
      outputs_.push_back(runner.put_poisoned(count_ * sizeof(std::uint32_t), s % 2 == 0 ? 0 : 4));
      calls.push_back(remote::to_call(
          lab12_remote::Scan{.variant = variant_,
                             .count = as_int(count_),
                             .workspace_bytes = as_int(workspace),
                             .workspace_present = workspace > 0,
                             .workspace_poisoned = 0,
                             .input = {pool, as_int(offsets_[s] * sizeof(std::uint32_t))},
                             .output = {outputs_.back().id, 0}}));
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    const std::vector<std::uint32_t>& prefix = totals().prefix;
    for (std::size_t s = 0; s < offsets_.size(); ++s) {
      runner.get_with(outputs_[s], "output",
                      [&](const std::uint8_t* bytes) { check_set(s, bytes, prefix); });
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    return {{"count", static_cast<double>(count_)}, {"bytes", 8.0 * count_}};
  }

 private:
  // Set s's output, read where it lies (4-byte aligned: put's offsets are 0 or 4).
  void check_set(std::size_t s, const std::uint8_t* bytes,
                 const std::vector<std::uint32_t>& prefix) const {
    const std::uint32_t* got = reinterpret_cast<const std::uint32_t*>(bytes);
    const std::uint32_t* expected = prefix.data() + offsets_[s] + 1;
    const std::uint32_t before = prefix[offsets_[s]];
    // The first wrong value, compared in parallel (2^26 values a set).
    std::size_t first_wrong = count_;
#pragma omp parallel for schedule(static) reduction(min : first_wrong)
    for (std::size_t i = 0; i < count_; ++i)
      if (got[i] != static_cast<std::uint32_t>(expected[i] - before) && i < first_wrong)
        first_wrong = i;
    if (first_wrong < count_) {
      throw std::runtime_error(
          wrong(s, "output[" + std::to_string(first_wrong) +
                       "] = " + std::to_string(got[first_wrong]) + ", expected " +
                       std::to_string(static_cast<std::uint32_t>(expected[first_wrong] - before))));
    }
  }

  std::vector<std::uint32_t> draw_pool(std::size_t size, std::uint64_t seed) const override {
    return lab12::scan_inputs(size, seed);
  }
  std::vector<RemoteBuffer> outputs_;
};

// ---- Histogram: bytes drawn as --distribution says ----

class HistogramWorkload : public WindowWorkload<std::uint8_t, lab12_rules::HistogramTotals> {
 public:
  HistogramWorkload(std::string variant, std::size_t count, lab12::ByteDistribution distribution)
      : WindowWorkload(std::move(variant), count), distribution_(distribution) {}
  std::string problem() const override {
    return WindowWorkload::problem() + "_" + lab12::distribution_name(distribution_);
  }
  double prepared_work() const override { return static_cast<double>(count_) * offsets_.size(); }
  CallBytes least_bytes_per_call() const override {
    return {static_cast<double>(count_), 4.0 * lab12::kBins};
  }
  std::size_t bytes_per_set() const override { return 4096; }  // the bins; the pool is shared

  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    const std::int64_t pool = put_pool(runner, sets, seed);
    outputs_.clear();
    std::vector<Call> calls;
    for (std::size_t offset : offsets_) {
      outputs_.push_back(runner.put_poisoned(lab12::kBins * sizeof(std::uint32_t), 0));
      calls.push_back(remote::to_call(lab12_remote::Histogram{.variant = variant_,
                                                              .count = as_int(count_),
                                                              .input = {pool, as_int(offset)},
                                                              .bins = {outputs_.back().id, 0}}));
    }
    return calls;
  }

  void check(RemoteRunner& runner) override {
    const lab12_rules::HistogramTotals& totals = this->totals();
    for (std::size_t s = 0; s < offsets_.size(); ++s) {
      const lab12_rules::HistogramTotals::Bins bins = totals.window(offsets_[s], count_);
      std::array<std::uint32_t, lab12::kBins> got{};
      std::memcpy(got.data(), runner.get(outputs_[s], "bins").data(), sizeof got);
      for (int b = 0; b < lab12::kBins; ++b) {
        if (got[b] != static_cast<std::uint32_t>(bins[b])) {
          throw std::runtime_error(wrong(s, "bin " + std::to_string(b) + " = " +
                                                std::to_string(got[b]) + ", expected " +
                                                std::to_string(bins[b])));
        }
      }
    }
  }

  std::vector<std::pair<std::string, double>> facts() const override {
    return {{"count", static_cast<double>(count_)}, {"bytes", static_cast<double>(count_)}};
  }

 private:
  std::vector<std::uint8_t> draw_pool(std::size_t size, std::uint64_t seed) const override {
    return lab12::histogram_inputs(size, distribution_, seed);
  }
  lab12::ByteDistribution distribution_;
  std::vector<RemoteBuffer> outputs_;
};

}  // namespace

// --count N: the elements of the sum and the scan, the bytes of the histogram (default 2^26);
// --distribution uniform|skewed: the histogram's bytes.
std::unique_ptr<Workload> make_workload(const std::string& variant,
                                        const std::vector<std::string>& args) {
  const auto count =
      static_cast<std::size_t>(flag_value(args, "--count", std::int64_t{1} << 26, 1, 0xFFFFFFFFLL));
  if (is_given_variant("sum_variants", variant))
    return std::make_unique<SumWorkload>(variant, count);
  if (is_given_variant("scan_variants", variant))
    return std::make_unique<ScanWorkload>(variant, count);
  if (is_given_variant("histogram_variants", variant)) {
    const std::string distribution = flag_choice(args, "--distribution", {"uniform", "skewed"});
    return std::make_unique<HistogramWorkload>(variant, count,
                                               distribution == "skewed"
                                                   ? lab12::ByteDistribution::kSkewed
                                                   : lab12::ByteDistribution::kUniform);
  }
  throw std::invalid_argument("lab 12 has no variant '" + variant + "' the grader names");
}

}  // namespace grader::referee
