// Lab 13's launches for the checks of every lab (common/launch_catalog.h): every softmax at one
// element, odd, wide and very long rows; every attention at both head sizes, causal or not, from
// one query to 4096.
#include "common/launch_catalog.h"
#include "labs/13_attention/lab.h"
#ifdef CUDALABS_GATE_LAB13_STEPS
#include "solutions/13_attention/attention_steps.h"
#endif

#include <string>
#include <utility>
#include <vector>

namespace lab13 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  using Rows = std::pair<int, int>;  // rows, columns
  catalog.add_variants(
      softmax_variants(), std::vector<Rows>{{1, 1}, {33, 1023}, {4096, 2048}, {7, 32768}},
      [](const SoftmaxVariant& variant, const Rows& rows) {
        return variant.describe(rows.first, rows.second);
      },
      [](const Rows& rows) {
        return std::to_string(rows.first) + "x" + std::to_string(rows.second);
      });
  std::vector<AttentionShape> shapes;
  for (const int head_dim : {64, 128})
    for (const bool causal : {false, true})
      for (const int sequence : {1, 1000, 4096})
        shapes.push_back({4, 16, sequence, head_dim, causal});
  const auto label = [](const AttentionShape& s) {
    return "b4h16s" + std::to_string(s.sequence) + "d" + std::to_string(s.head_dim) +
           (s.causal ? "causal" : "");
  };
  catalog.add_variants(attention_variants(), shapes, label);
#ifdef CUDALABS_GATE_LAB13_STEPS
  // The solution's steps past the ladder (the resource gate's solution build defines this).
  std::vector<AttentionVariant> steps;
  for (const AttentionStep& step : attention_steps()) steps.push_back(step.variant);
  catalog.add_variants(std::span<const AttentionVariant>(steps), shapes, label);
#endif
}

}  // namespace lab13
