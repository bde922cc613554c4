// The CPU reference at sampled elements of inputs drawn by index (drawn_reference.h) is the
// reference of the whole host matrices at the same elements: the GPU's draws are fill_uniform's
// (device_fill.h).
#include "common/drawn_reference.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"

#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <vector>

namespace cudalabs {
namespace {

TEST(DrawnReference, IsTheReferenceOfTheDrawnMatrices) {
  const GemmShape shape{23, 41, 37};
  const int lda = 40, ldb = 45, ldc = 44, first = 3;
  const std::uint64_t seed = derive_seed(run_seed(), "drawn reference");
  std::vector<float> a(first + shape.m * lda), b(first + shape.k * ldb), c(first + shape.m * ldc);
  fill_uniform(a, seed + 1);
  fill_uniform(b, seed + 2);
  fill_uniform(c, seed + 3);
  const auto from = [&](const std::vector<float>& all) {
    return std::span<const float>(all).subspan(first);
  };
  const HostGemmInputs inputs{shape, 1.5f, -0.75f, from(a), lda, from(b), ldb, from(c), ldc};
  const std::vector<std::int64_t> positions = sample_positions(shape.m, shape.n, 50, seed);
  const ReferenceValues expected = reference_gemm_at(inputs, positions);
  const ReferenceValues drawn = drawn_gemm_reference(shape, 1.5f, DrawnMatrix{seed + 1, first, lda},
                                                     DrawnMatrix{seed + 2, first, ldb}, -0.75f,
                                                     DrawnMatrix{seed + 3, first, ldc}, positions);
  EXPECT_EQ(drawn.positions, expected.positions);
  EXPECT_EQ(drawn.value, expected.value);
  EXPECT_EQ(drawn.magnitude, expected.magnitude);
  EXPECT_THROW(drawn_gemm_reference(shape, 1.0f, {}, {}, 0.0f, {}, {shape.m * shape.n}),
               std::invalid_argument);
}

TEST(DrawnReference, RoundsAsTheGpuReads) {
  const DrawnMatrix plain{42, 0, 8}, halved{42, 0, 8, [](float v) { return 0.5f * v; }};
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(plain.at(1, j), uniform_at(42, 8 + j));
    EXPECT_EQ(halved.at(1, j), 0.5f * uniform_at(42, 8 + j));
  }
}

}  // namespace
}  // namespace cudalabs
