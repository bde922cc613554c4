// The checks' GPU side against their CPU definitions: inputs drawn on the GPU are bit for bit the
// host's draws, and the comparison on the GPU gives the host comparison's verdict, worst element
// and counts, on planted errors of every kind.
#include "common/device_buffer.h"
#include "common/device_fill.h"
#include "common/gemm_check.h"
#include "common/gemm_compare.h"
#include "common/gemm_device_compare.h"
#include "common/gemm_types.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_gemm.h"
#include "tests/support/gpu_test.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace cudalabs {
namespace {

template <class T>
std::vector<std::uint32_t> bits_of(const std::vector<T>& values) {
  std::vector<std::uint32_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t word = 0;
    std::memcpy(&word, &values[i], sizeof(T));
    bits[i] = word;
  }
  return bits;
}

TEST(DeviceFill, DrawsTheHostsValuesBitForBit) {
  CUDALABS_REQUIRE_GPU();
  const std::size_t count = 1000003;  // odd: the grid's last block is partial
  for (const auto& [lo, hi] :
       {std::pair{-1.0f, 1.0f}, std::pair{-3.5f, 1e5f}, std::pair{0.25f, 0.5f}}) {
    const std::uint64_t seed = derive_seed(run_seed(), "device fill " + std::to_string(lo));
    std::vector<float> host(count);
    fill_uniform(host, seed, lo, hi);
    DeviceBuffer<float> device(count);
    fill_uniform_device(device.data(), count, seed, nullptr, lo, hi);
    EXPECT_EQ(bits_of(device.to_host()), bits_of(host)) << "[" << lo << ", " << hi << ")";
  }
  // BF16 and FP16: the host's draw rounded to nearest, as the checks' references round it.
  const std::uint64_t seed = derive_seed(run_seed(), "device fill rounded");
  std::vector<float> host(count);
  fill_uniform(host, seed);
  DeviceBuffer<__nv_bfloat16> bf16(count);
  DeviceBuffer<__half> fp16(count);
  fill_uniform_device(bf16.data(), count, seed);
  fill_uniform_device(fp16.data(), count, seed);
  const std::vector<__nv_bfloat16> got_bf16 = bf16.to_host();
  const std::vector<__half> got_fp16 = fp16.to_host();
  for (std::size_t i = 0; i < count; i += 97) {
    ASSERT_EQ(__bfloat162float(got_bf16[i]), round_to_input<__nv_bfloat16>(host[i])) << i;
    ASSERT_EQ(__half2float(got_fp16[i]), round_to_input<__half>(host[i])) << i;
  }
}

// A C with every kind of finding, and its reference in float (what cuBLAS gives the GPU's side).
struct Planted {
  int m = 301, n = 257, ldc = 263, k = 1000;
  float beta = 0.5f;
  std::vector<float> product, magnitude, old_c, c;

  explicit Planted(std::uint64_t seed) {
    const std::size_t count = static_cast<std::size_t>(m) * ldc;
    product.resize(count);
    magnitude.resize(count);
    old_c.resize(count);
    fill_uniform(product, seed, -50.0f, 50.0f);
    fill_uniform(magnitude, seed + 1, 50.0f, 100.0f);
    fill_uniform(old_c, seed + 2);
    c = old_c;  // the padding keeps the old C
    std::vector<float> noise(count);
    fill_uniform(noise, seed + 3, -1e-4f,
                 1e-4f);  // within the bound: u (k + 2) x magnitude >= 3e-3
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * ldc + j;
        c[at] = static_cast<float>(product[at] + static_cast<double>(beta) * old_c[at]) + noise[at];
      }
  }
  std::size_t at(int i, int j) const { return static_cast<std::size_t>(i) * ldc + j; }

  // The host comparison's reference: the same values in double.
  ReferenceValues reference() const {
    ReferenceValues ref;
    ref.m = m;
    ref.n = n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        ref.value.push_back(product[at(i, j)] + static_cast<double>(beta) * old_c[at(i, j)]);
        ref.magnitude.push_back(magnitude[at(i, j)] +
                                std::fabs(static_cast<double>(beta)) * std::fabs(old_c[at(i, j)]));
      }
    return ref;
  }
};

void expect_same(const GemmComparison& device, const GemmComparison& host,
                 const std::string& what) {
  EXPECT_EQ(device.checked, host.checked) << what;
  EXPECT_EQ(device.unwritten, host.unwritten) << what;
  EXPECT_EQ(device.first_unwritten_row, host.first_unwritten_row) << what;
  EXPECT_EQ(device.first_unwritten_col, host.first_unwritten_col) << what;
  EXPECT_EQ(device.over_bound, host.over_bound) << what;
  EXPECT_EQ(device.non_finite, host.non_finite) << what;
  EXPECT_EQ(device.worst_row, host.worst_row) << what;
  EXPECT_EQ(device.worst_col, host.worst_col) << what;
  EXPECT_EQ(device.passed(), host.passed()) << what;
  if (std::isfinite(host.worst_ratio)) {
    EXPECT_NEAR(device.worst_ratio, host.worst_ratio, 1e-9 * host.worst_ratio) << what;
    EXPECT_NEAR(device.relative_l2, host.relative_l2, 1e-9 * host.relative_l2 + 1e-300) << what;
  } else {
    EXPECT_EQ(device.worst_ratio, host.worst_ratio) << what;
  }
  EXPECT_EQ(device.relative_l2_bound, host.relative_l2_bound) << what;
}

TEST(DeviceCompare, GivesTheHostComparisonsFindings) {
  CUDALABS_REQUIRE_GPU();
  const std::uint64_t seed = derive_seed(run_seed(), "device compare");
  const std::vector<float> poison = poisoned_host(1);
  const auto plant = [&](const char* what, auto change) {
    Planted p(seed);
    change(p);
    DeviceBuffer<float> c{std::span<const float>(p.c)}, product{std::span<const float>(p.product)},
        magnitude{std::span<const float>(p.magnitude)}, old_c{std::span<const float>(p.old_c)};
    const DeviceGemmReference reference{
        p.m, p.n, p.ldc, product.data(), magnitude.data(), old_c.data(), p.beta};
    const DeviceGemmComparison device =
        compare_gemm_device(c.data(), reference, p.k, {}, old_c.data());
    const GemmComparison host = compare_gemm(p.c, p.ldc, p.reference(), p.k);
    expect_same(device.comparison, host, what);
    EXPECT_EQ(device.padding_changes, count_padding_changes(p.old_c, p.c, p.m, p.n, p.ldc)) << what;
    return device;
  };
  EXPECT_TRUE(plant("nothing wrong", [](Planted&) {}).comparison.passed());
  plant("one element off", [](Planted& p) { p.c[p.at(150, 128)] += 1.0f; });
  plant("two equal worst elements: the first wins", [](Planted& p) {
    const std::size_t first = p.at(3, 9), later = p.at(7, 200);
    p.product[later] = p.product[first];
    p.magnitude[later] = p.magnitude[first];
    p.old_c[later] = p.old_c[first];
    p.c[first] = p.c[later] = static_cast<float>(p.product[first] + 0.5 * p.old_c[first]) + 3.0f;
  });
  plant("unwritten elements", [&](Planted& p) {
    for (int j = 100; j < 257; ++j) p.c[p.at(300, j)] = poison[0];
    p.c[p.at(200, 5)] = poison[0];
  });
  const DeviceGemmComparison nan = plant("a computed NaN and an infinity", [](Planted& p) {
    p.c[p.at(10, 10)] = std::numeric_limits<float>::quiet_NaN();
    p.c[p.at(20, 20)] = std::numeric_limits<float>::infinity();
  });
  EXPECT_EQ(nan.comparison.non_finite, 2);
  const DeviceGemmComparison padding = plant("padding written", [](Planted& p) {
    for (int i = 0; i < p.m; i += 3) p.c[p.at(i, p.n + 2)] = 0.0f;
  });
  EXPECT_EQ(padding.padding_changes, 101);
  // Poisoned padding (the write check's) with product only: nothing written counts every element.
  Planted p(seed);
  std::vector<float> all_poison(p.c.size(), poison[0]);
  DeviceBuffer<float> c{std::span<const float>(all_poison)};
  const DeviceGemmReference count_only{p.m, p.n, p.ldc};
  const DeviceGemmComparison none = compare_gemm_device(c.data(), count_only, p.k, {});
  EXPECT_TRUE(none.comparison.nothing_written());
  EXPECT_EQ(none.padding_changes, 0);
}

TEST(DeviceCompare, GathersTheSampledElements) {
  CUDALABS_REQUIRE_GPU();
  Planted p(derive_seed(run_seed(), "gather"));
  DeviceBuffer<float> c{std::span<const float>(p.c)};
  const std::vector<std::int64_t> positions = sample_positions(p.m, p.n, 100, 5);
  const std::vector<float> got = gather_gemm_elements(c.data(), p.n, p.ldc, positions);
  ASSERT_EQ(got.size(), positions.size());
  for (std::size_t s = 0; s < positions.size(); ++s)
    EXPECT_EQ(
        got[s],
        p.c[p.at(static_cast<int>(positions[s] / p.n), static_cast<int>(positions[s] % p.n))]);
}

TEST(DeviceCompare, RefusesAnImpossibleReference) {
  CUDALABS_REQUIRE_GPU();
  DeviceBuffer<float> c(16), product(16);
  EXPECT_THROW(compare_gemm_device(c.data(), DeviceGemmReference{4, 4, 3}, 4, {}),
               std::invalid_argument);
  EXPECT_THROW(compare_gemm_device(c.data(), DeviceGemmReference{4, 4, 4, product.data()}, 4, {}),
               std::invalid_argument);
  EXPECT_THROW(compare_gemm_device(c.data(), DeviceGemmReference{4, 4, 4}, 0, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace cudalabs
