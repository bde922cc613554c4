// Lab 13's CPU references, tested on the CPU: the softmax row against hand-worked cases and a
// second formulation, its inputs (masked rows keep a finite entry), its error bound (a masked
// output must be 0; a perfect FP32 output passes), the BF16 inputs, attention in
// double against hand-worked cases and an independent formulation (all scores, then the softmax,
// then the product), and the shapes' FLOP counts and labels.
#include "labs/13_attention/lab.h"
#include "labs/13_attention/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

TEST(ReferenceSoftmax, HandWorkedCases) {
  EXPECT_EQ(lab13::reference_softmax_row(std::vector<float>{0.0f, 0.0f}),
            (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(lab13::reference_softmax_row(std::vector<float>{3.0f, kMinusInfinity}),
            (std::vector<double>{1.0, 0.0}));
  // exp(1000) overflows even a double: the maximum is subtracted first.
  EXPECT_EQ(lab13::reference_softmax_row(std::vector<float>{1000.0f, 1000.0f}),
            (std::vector<double>{0.5, 0.5}));
  const std::vector<double> y =
      lab13::reference_softmax_row(std::vector<float>{0.0f, std::log(3.0f)});
  EXPECT_NEAR(y[0], 0.25, 1e-7);
  EXPECT_NEAR(y[1], 0.75, 1e-7);
}

TEST(ReferenceSoftmax, AgreesWithTheDirectFormula) {
  const std::vector<float> x = lab13::softmax_inputs(1, 500, lab13::SoftmaxInputs::kUniform, 3);
  long double sum = 0;
  for (const float v : x) sum += std::exp(static_cast<long double>(v));
  const std::vector<double> y = lab13::reference_softmax_row(x);
  for (std::size_t c = 0; c < x.size(); ++c) {
    const long double direct = std::exp(static_cast<long double>(x[c])) / sum;
    EXPECT_NEAR(y[c], static_cast<double>(direct), 1e-15 + 1e-12 * static_cast<double>(direct));
  }
  EXPECT_NEAR(std::accumulate(y.begin(), y.end(), 0.0), 1.0, 1e-12);
}

TEST(SoftmaxInputs, MaskedRowsKeepAFiniteEntry) {
  const int rows = 300, columns = 7;
  const std::vector<float> x =
      lab13::softmax_inputs(rows, columns, lab13::SoftmaxInputs::kMasked, 9);
  std::size_t masked = 0;
  for (int r = 0; r < rows; ++r) {
    bool finite = false;
    for (int c = 0; c < columns; ++c) {
      const float v = x[r * columns + c];
      finite = finite || std::isfinite(v);
      masked += v == kMinusInfinity ? 1 : 0;
    }
    EXPECT_TRUE(finite) << "row " << r;
  }
  EXPECT_GT(masked, rows * columns / 5u);
  const std::vector<float> large = lab13::softmax_inputs(10, 100, lab13::SoftmaxInputs::kLarge, 9);
  EXPECT_GT(*std::max_element(large.begin(), large.end()), 89.0f);  // exp overflows FP32 there
}

TEST(SoftmaxBound, GrowsWithTheRowAndTheDistance) {
  EXPECT_GT(lab13::softmax_relative_bound(4096, 0.0), lab13::softmax_relative_bound(64, 0.0));
  EXPECT_GT(lab13::softmax_relative_bound(64, 20.0), lab13::softmax_relative_bound(64, 0.0));
  EXPECT_LT(lab13::softmax_relative_bound(4096, 20.0), 1e-3);
}

TEST(SoftmaxBound, AMaskedOutputMustBeZero) {
  // A masked input is infinitely far below the maximum and its exact output is 0: the bound is
  // 2^-120, not infinity * 0 = NaN (which no output meets).
  const double infinity = std::numeric_limits<double>::infinity();
  EXPECT_EQ(lab13::softmax_error_bound(1001, infinity, 0.0), 0x1.0p-120);
  EXPECT_FALSE(0.0 > lab13::softmax_error_bound(1001, infinity, 0.0));
  EXPECT_GT(1e-30, lab13::softmax_error_bound(1001, infinity, 0.0));
  EXPECT_EQ(lab13::softmax_error_bound(64, 3.0, 0.5),
            lab13::softmax_relative_bound(64, 3.0) * 0.5 + 0x1.0p-120);
}

TEST(SoftmaxBound, TheExactOutputsInFp32PassAndWrongOnesFail) {
  // The check's own arithmetic on a masked input: the reference rounded to FP32 (a perfect kernel)
  // meets every bound, masked entries included; a masked entry that is not 0 and an entry off by
  // 2^-10 relative do not.
  const int rows = 50, columns = 1001;
  const std::vector<float> x =
      lab13::softmax_inputs(rows, columns, lab13::SoftmaxInputs::kMasked, 11);
  std::size_t masked = 0;
  for (int r = 0; r < rows; ++r) {
    const std::span<const float> row(x.data() + static_cast<std::size_t>(r) * columns, columns);
    const std::vector<double> exact = lab13::reference_softmax_row(row);
    const double row_max = *std::max_element(row.begin(), row.end());
    for (int c = 0; c < columns; ++c) {
      const double bound = lab13::softmax_error_bound(columns, row_max - row[c], exact[c]);
      const double perfect = static_cast<float>(exact[c]);
      ASSERT_LE(std::fabs(perfect - exact[c]), bound) << "row " << r << " column " << c;
      if (row[c] == kMinusInfinity) {
        ++masked;
        EXPECT_GT(std::fabs(1e-30 - exact[c]), bound) << "row " << r << " column " << c;
      } else {
        EXPECT_GT(std::fabs(perfect * (1.0 + 0x1.0p-10) - exact[c]), bound)
            << "row " << r << " column " << c;
      }
    }
  }
  EXPECT_GT(masked, static_cast<std::size_t>(rows) * columns / 5);
}

TEST(Bf16Inputs, AreBf16ValuesInTheirRange) {
  std::vector<float> as_float;
  const std::vector<__nv_bfloat16> values = lab13::bf16_inputs(10000, -2.0f, 2.0f, 5, as_float);
  ASSERT_EQ(values.size(), as_float.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(__bfloat162float(values[i]), as_float[i]);
    EXPECT_GE(as_float[i], -2.0f);
    EXPECT_LE(as_float[i], 2.0f);
  }
}

// Q = 0: every key gets the same probability, so O is the mean of the (visible) rows of V.
TEST(ReferenceAttention, ZeroQueriesAverageTheValues) {
  const lab13::AttentionShape shape{1, 1, 5, 64, true};
  std::vector<float> q(shape.elements(), 0.0f), k(shape.elements()), v(shape.elements());
  for (std::size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<float>(i % 7) - 3.0f;
    v[i] = static_cast<float>(i % 11);
  }
  for (int query = 0; query < shape.sequence; ++query) {
    const auto r = lab13::reference_attention_row(shape, 0.125f, q, k, v, 0, query);
    for (int c = 0; c < shape.head_dim; ++c) {
      double mean = 0.0;
      for (int j = 0; j <= query; ++j) mean += v[j * shape.head_dim + c];
      EXPECT_NEAR(r.output[c], mean / (query + 1), 1e-12);
      EXPECT_NEAR(r.magnitude[c], mean / (query + 1), 1e-12);  // V >= 0: A = O
    }
  }
}

TEST(ReferenceAttention, AgreesWithScoresThenSoftmaxThenProduct) {
  const lab13::AttentionShape shape{1, 2, 37, 64, false};
  std::vector<float> q, k, v;
  lab13::bf16_inputs(shape.elements(), -2.0f, 2.0f, 1, q);
  lab13::bf16_inputs(shape.elements(), -2.0f, 2.0f, 2, k);
  lab13::bf16_inputs(shape.elements(), -1.0f, 1.0f, 3, v);
  const float scale = lab13::default_scale(shape.head_dim);
  const int d = shape.head_dim, s = shape.sequence;
  for (long long head = 0; head < shape.heads_total(); ++head) {
    const std::size_t base = static_cast<std::size_t>(head) * s * d;
    for (int i = 0; i < s; ++i) {
      std::vector<float> scores(s);
      for (int j = 0; j < s; ++j) {
        double dot = 0;
        for (int c = 0; c < d; ++c)
          dot += static_cast<double>(q[base + i * d + c]) * k[base + j * d + c];
        scores[j] = static_cast<float>(scale * dot);
      }
      const std::vector<double> p = lab13::reference_softmax_row(scores);
      const auto r = lab13::reference_attention_row(shape, scale, q, k, v, head, i);
      for (int c = 0; c < d; ++c) {
        double o = 0;
        for (int j = 0; j < s; ++j) o += p[j] * v[base + j * d + c];
        // The scores above were rounded to FP32: a relative 2^-24 on each probability.
        EXPECT_NEAR(r.output[c], o, 1e-6);
        EXPECT_GT(lab13::attention_tolerance(r, c, s), 0x1.0p-8 * std::fabs(r.output[c]));
      }
    }
  }
}

TEST(AttentionShape, FlopsAndLabel) {
  const lab13::AttentionShape full{4, 16, 4096, 128, false};
  EXPECT_DOUBLE_EQ(full.flops(), 4.0 * 64 * 128 * 4096.0 * 4096.0);
  EXPECT_EQ(full.label(), "b4h16s4096d128");
  const lab13::AttentionShape causal{4, 16, 4096, 128, true};
  EXPECT_DOUBLE_EQ(causal.flops(), 4.0 * 64 * 128 * 4096.0 * 4097.0 / 2);
  EXPECT_EQ(causal.label(), "b4h16s4096d128_causal");
  EXPECT_EQ(full.elements(), std::size_t{64} * 4096 * 128);
  EXPECT_FLOAT_EQ(lab13::default_scale(64), 0.125f);
}

}  // namespace
