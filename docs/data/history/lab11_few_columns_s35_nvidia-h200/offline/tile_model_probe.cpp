// What lab 11's planner (best_plan.h) makes of shapes given on the command line, tightly packed on
// an H200 (132 SMs): the TMA path's plan and time, the few-columns kernel's plan and time, and
// whether `best` runs the few-columns kernel. No GPU needed.
//
//   g++ -std=c++20 -Ilabs/11_tensor_cores -I. -I$B/suite-view -Ilabs/09_dcgan -Ilabs/07_wide_loads
//     -I/usr/local/cuda/include tile_model_probe.cpp -o tile_model_probe      (from the root)
//   tile_model_probe MxNxK [MxNxK ...]
#include "best_plan.h"

#include <cstdio>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(argv[i], "%dx%dx%d", &m, &n, &k) != 3) return 1;
    const cudalabs::GemmShape shape{m, n, k};
    const bool copy_a = (2 * k) % 16 != 0, copy_b = (2 * n) % 16 != 0;  // rows off 16 bytes
    const lab11::SpecializedPlan plan = lab11::plan_best(shape, 132);
    const lab11::FewColumnsPlan few =
        lab11::plan_few_columns(shape, 132, lab11::few_columns_loads(shape, copy_a, copy_b));
    std::printf(
        "%s: tiles %s, %.2f us (+%.1f to start, copies of A %d, of B %d); few-columns %d x %d,"
        " %.2f us; best runs it: %d\n",
        argv[i], plan.describe().c_str(), plan.predicted_us, lab11::kSpecializedLaunchUs, copy_a,
        copy_b, few.slices, few.slice_k, few.predicted_us,
        lab11::few_columns_pays(shape, plan, few, copy_a, copy_b));
  }
  return 0;
}
