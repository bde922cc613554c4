// The launches the labs make, as their variants describe them, for the resource gate
// (tests/resource_gate/resource_gate.py): for every variant of every GEMM lab, lab 08's
// convolutions, lab 12's sums, scans and histograms and lab 13's softmaxes and attention, at a few
// shapes, the kernel's host address, the threads per block and the dynamic shared memory. Runs on
// the CPU: a description that needs a GPU (one that asks for the SM count) is reported as such. The
// first line gives the address of a function of this program, so that the gate can map run-time
// addresses to the symbols `nm` lists.
#include "labs/01_naive_gemm/lab.h"
#include "labs/02_smem_tiling/lab.h"
#include "labs/03_transposed_layouts/lab.h"
#include "labs/04_block_size/lab.h"
#include "labs/05_register_tiling/lab.h"
#include "labs/06_double_buffering/lab.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/08_coarsening/lab.h"
#include "labs/11_tensor_cores/lab.h"
#include "labs/12_reduce_scan_histogram/lab.h"
#include "labs/13_attention/lab.h"
#ifdef CUDALABS_GATE_LAB13_STEPS
#include "solutions/13_attention/attention_steps.h"
#endif

#include <cstdio>
#include <exception>
#include <span>
#include <utility>
#include <vector>

extern "C" int cudalabs_resource_gate_anchor() {
  return 0;
}

namespace {

// Square and odd shapes, and the shapes where the tile and split choices of lab 07's `best` change.
const std::vector<cudalabs::GemmShape> kGemmShapes = {
    {4096, 4096, 4096}, {1000, 1000, 1000}, {17, 33, 65}, {65536, 64, 3200}, {128, 10240, 6400}};

void print(const char* lab, const char* variant, const cudalabs::KernelLaunch& launch) {
  std::printf("launch %s %s %p %d %zu\n", lab, variant, launch.kernel, launch.threads_per_block(),
              launch.dynamic_shared_bytes);
}

// describe(variant, shape): the variant's KernelLaunch at that shape.
template <class Variant, class Shape, class Describe>
void describe_each(const char* lab, std::span<const Variant> variants,
                   const std::vector<Shape>& shapes, Describe describe) {
  for (const Variant& variant : variants) {
    if (variant.describe == nullptr) continue;
    for (const Shape& shape : shapes) {
      try {
        print(lab, variant.name, describe(variant, shape));
      } catch (const std::exception& error) {
        std::printf("undescribed %s %s %s\n", lab, variant.name, error.what());
        break;
      }
    }
  }
}

template <class Variant, class Shape>
void describe_all(const char* lab, std::span<const Variant> variants,
                  const std::vector<Shape>& shapes) {
  describe_each(lab, variants, shapes,
                [](const Variant& variant, const Shape& shape) { return variant.describe(shape); });
}

}  // namespace

int main() {
  std::printf("anchor %p\n", reinterpret_cast<void*>(&cudalabs_resource_gate_anchor));
  describe_all("lab01", lab01::variants(), kGemmShapes);
  describe_all("lab02", lab02::variants(), kGemmShapes);
  describe_all("lab03", lab03::variants(), kGemmShapes);
  describe_all("lab04", lab04::variants(), kGemmShapes);
  describe_all("lab05", lab05::variants(), kGemmShapes);
  describe_all("lab06", lab06::variants(), kGemmShapes);
  describe_all("lab07", lab07::variants(), kGemmShapes);
  describe_all(
      "lab08", lab08::variants(),
      std::vector<cudalabs::ConvShape>{{1, 64, 64, 64, 64, 3, 3}, {8, 32, 32, 256, 128, 5, 5}});
  describe_all("lab11", lab11::variants(), kGemmShapes);
  describe_all("lab11", lab11::fp16_variants(), kGemmShapes);
  // One element, odd and misaligned-sized counts, and past 2^28.
  const std::vector<std::size_t> counts = {1, 1000003, std::size_t{1} << 26,
                                           (std::size_t{1} << 28) + 3};
  describe_all("lab12", lab12::sum_variants(), counts);
  describe_all("lab12", lab12::scan_variants(), counts);
  describe_all("lab12", lab12::histogram_variants(), counts);
  describe_each("lab13", lab13::softmax_variants(),
                std::vector<std::pair<int, int>>{{1, 1}, {33, 1023}, {4096, 2048}, {7, 32768}},
                [](const lab13::SoftmaxVariant& variant, const std::pair<int, int>& shape) {
                  return variant.describe(shape.first, shape.second);
                });
  std::vector<lab13::AttentionShape> attention;
  for (const int head_dim : {64, 128})
    for (const bool causal : {false, true})
      for (const int sequence : {1, 1000, 4096})
        attention.push_back({4, 16, sequence, head_dim, causal});
  describe_all("lab13", lab13::attention_variants(), attention);
#ifdef CUDALABS_GATE_LAB13_STEPS
  // The solution's attention steps past the ladder (solutions/13_attention/attention_steps.h).
  std::vector<lab13::AttentionVariant> steps;
  for (const lab13::AttentionStep& step : lab13::attention_steps()) steps.push_back(step.variant);
  describe_all("lab13", std::span<const lab13::AttentionVariant>(steps), attention);
#endif
  return 0;
}
