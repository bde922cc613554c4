// Lab 07's model's prediction of every plan `best` weighs, for shapes read from stdin.
// stdin: lines "M N K V" (V: 1 with 128-bit loads, 0 on the scalar path);
// stdout: lines "M N K V name slice_k stream_blocks predicted_us".
// Build against best_plan.cpp of the commit whose model is wanted, from the repository's root:
//   g++ -std=c++20 -O1 -I. -Ilabs/07_wide_loads -I<CUDA>/include plan_predictions.cpp \
//       labs/07_wide_loads/best_plan.cpp -o plan_predictions
#include "labs/07_wide_loads/best_plan.h"

#include <cstdio>

int main() {
  int m, n, k, v;
  while (std::scanf("%d %d %d %d", &m, &n, &k, &v) == 4) {
    const cudalabs::GemmShape shape{m, n, k};
    for (const lab07::BestPlan& plan : lab07::candidate_plans(shape, 132, v != 0))
      std::printf("%d %d %d %d %s %d %d %.4f\n", m, n, k, v, plan.candidate->name, plan.slice_k,
                  plan.stream_blocks, plan.predicted_us);
  }
  return 0;
}
