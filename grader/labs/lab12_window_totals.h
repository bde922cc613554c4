/// @file grader/labs/lab12_window_totals.h
/// @brief The totals of any window of a timed pool (its sum and nonzero count; its histogram),
/// from running totals kept at every stride of the pool: two lookups and at most two partial
/// strides a window, where summing each of a round's 64 windows of 2^26 values took seconds.
/// Built once per pool, in parallel.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace grader::lab12_rules {

/// Sum and count of nonzero values of windows of a pool of small integers (lab12_timed_sum.h).
class SumTotals {
 public:
  static constexpr std::size_t kStride = 4096;
  struct Totals {
    std::int64_t sum = 0, nonzero = 0;
  };

  explicit SumTotals(std::span<const float> pool) : pool_(pool) {
    const std::size_t strides = pool.size() / kStride;
    running_.assign(strides + 1, {});
#pragma omp parallel for schedule(static)
    for (std::size_t b = 0; b < strides; ++b)
      running_[b + 1] = partial(b * kStride, (b + 1) * kStride);
    for (std::size_t b = 1; b <= strides; ++b) {
      running_[b].sum += running_[b - 1].sum;
      running_[b].nonzero += running_[b - 1].nonzero;
    }
  }

  /// Of pool[first, first + count).
  Totals window(std::size_t first, std::size_t count) const {
    const Totals end = before(first + count), start = before(first);
    return {end.sum - start.sum, end.nonzero - start.nonzero};
  }

 private:
  Totals partial(std::size_t first, std::size_t end) const {
    Totals totals;
    for (std::size_t i = first; i < end; ++i) {
      totals.sum += static_cast<std::int64_t>(pool_[i]);
      totals.nonzero += pool_[i] != 0.0f;
    }
    return totals;
  }
  // Of pool[0, x).
  Totals before(std::size_t x) const {
    const std::size_t b = std::min(x / kStride, running_.size() - 1);
    Totals totals = running_[b];
    const Totals rest = partial(b * kStride, x);
    return {totals.sum + rest.sum, totals.nonzero + rest.nonzero};
  }

  std::span<const float> pool_;
  std::vector<Totals> running_;  // of pool[0, b * kStride)
};

/// 256-bin histograms of windows of a pool of bytes.
class HistogramTotals {
 public:
  static constexpr std::size_t kStride = std::size_t{1} << 16;
  using Bins = std::array<std::int64_t, 256>;

  explicit HistogramTotals(std::span<const std::uint8_t> pool) : pool_(pool) {
    const std::size_t strides = pool.size() / kStride;
    running_.assign(strides + 1, Bins{});
#pragma omp parallel for schedule(static)
    for (std::size_t b = 0; b < strides; ++b) add(running_[b + 1], b * kStride, (b + 1) * kStride);
    for (std::size_t b = 1; b <= strides; ++b)
      for (int bin = 0; bin < 256; ++bin) running_[b][bin] += running_[b - 1][bin];
  }

  /// Of pool[first, first + count).
  Bins window(std::size_t first, std::size_t count) const {
    Bins end = before(first + count);
    const Bins start = before(first);
    for (int bin = 0; bin < 256; ++bin) end[bin] -= start[bin];
    return end;
  }

 private:
  void add(Bins& bins, std::size_t first, std::size_t end) const {
    for (std::size_t i = first; i < end; ++i) ++bins[pool_[i]];
  }
  Bins before(std::size_t x) const {
    const std::size_t b = std::min(x / kStride, running_.size() - 1);
    Bins bins = running_[b];
    add(bins, b * kStride, x);
    return bins;
  }

  std::span<const std::uint8_t> pool_;
  std::vector<Bins> running_;  // of pool[0, b * kStride)
};

}  // namespace grader::lab12_rules
