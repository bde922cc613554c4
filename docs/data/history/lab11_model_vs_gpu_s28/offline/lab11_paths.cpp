// Lab 11's `best` on a tight row-major BF16 GEMM, as launch.cuh's launch_best decides it on an
// H100/H200 (132 SMs), with the model's time of the path it takes and of each other path.
// stdin: "M N K" lines; stdout: "M N K path predicted_us tma T short_k S few_columns F wgmma_rung
// W" (path: few_columns, short_k, wgmma_rung, or tma_W[_sS][+copyA][+copyB], the copies onto lines
// or for alignment; tma: the warp-specialized plan with its copies and kSpecializedLaunchUs; -1
// where a path cannot run the shape; the launches' host time left out). Build from the repository's
// root: g++ -std=c++20 -I. -I<CUDA>/include lab11_paths.cpp
#include "labs/11_tensor_cores/best_plan.h"

#include <cstdio>
#include <string>

int main() {
  using namespace lab11;
  int m, n, k;
  while (std::scanf("%d %d %d", &m, &n, &k) == 3) {
    const cudalabs::GemmShape shape{m, n, k};
    const SpecializedPlan plan = plan_best(shape, 132);
    const bool copy_a = k % 8 != 0, copy_b = n % 8 != 0;  // rows 16 bytes apart for TMA
    std::string path;
    double us = 0.0;
    if (few_columns_fit(shape) &&
        few_columns_pays(shape, plan, plan_few_columns(shape, 132), copy_a, copy_b)) {
      path = "few_columns";
      us = plan_few_columns(shape, 132).predicted_us;
    } else if (short_k_pays(shape, plan, copy_a, copy_b, 132)) {
      path = "short_k";
      us = predicted_short_k_us(shape, !copy_a, !copy_b, 132);
    } else if (one_launch_rung_pays(shape, plan, copy_a, copy_b, 132)) {
      path = "wgmma_rung";
      us = predicted_wgmma_rung_us(shape, 132);
    } else {
      const bool lines_a =
          copy_a || (k % 64 != 0 && copy_a_to_lines_pays(shape, plan.width, plan.predicted_us));
      const bool lines_b =
          copy_b || (n % 64 != 0 && copy_b_to_lines_pays(shape, plan.predicted_us));
      path = "tma_" + std::to_string(plan.width) +
             (plan.split() ? "_s" + std::to_string(plan.slices) : std::string()) +
             (lines_a ? "+copyA" : "") + (lines_b ? "+copyB" : "");
      us = plan.predicted_us + kSpecializedLaunchUs + operand_copy_us(shape, lines_a, lines_b);
    }
    const bool lines_a =
        copy_a || (k % 64 != 0 && copy_a_to_lines_pays(shape, plan.width, plan.predicted_us));
    const bool lines_b = copy_b || (n % 64 != 0 && copy_b_to_lines_pays(shape, plan.predicted_us));
    const double tma_us =
        plan.predicted_us + kSpecializedLaunchUs + operand_copy_us(shape, lines_a, lines_b);
    const double short_us =
        k <= kShortKMaxK ? predicted_short_k_us(shape, !copy_a, !copy_b, 132) : -1;
    const double few_us = few_columns_fit(shape) ? plan_few_columns(shape, 132).predicted_us : -1;
    std::printf("%d %d %d %s %.3f tma %.3f short_k %.3f few_columns %.3f wgmma_rung %.3f\n", m, n,
                k, path.c_str(), us, tma_us, short_us, few_us, predicted_wgmma_rung_us(shape, 132));
  }
  return 0;
}
