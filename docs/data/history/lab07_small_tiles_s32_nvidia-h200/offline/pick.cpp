#include <cstdio>
#include <string>
#include "labs/07_wide_loads/best_plan.h"
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int m, n, k;
    std::sscanf(argv[i], "%dx%dx%d", &m, &n, &k);
    cudalabs::GemmShape s{m, n, k};
    bool pa = k % 4 != 0, pb = n % 4 != 0;
    auto v = lab07::plan_best(s, 132, true);
    auto sc = lab07::plan_best(s, 132, false);
    bool vec = !(pa || pb);
    const lab07::BestPlan& p = vec || lab07::repack_pays(sc, v, s, pa, pb, 132) ? v : sc;
    std::string label = p.candidate->name;
    if (p.splits > 1) label += "/split" + std::to_string(p.splits);
    if (p.stream_k()) label += "/stream";
    std::printf("%s %s %d\n", argv[i], label.c_str(),
                (!vec && lab07::repack_pays(sc, v, s, pa, pb, 132)) ? 1 : 0);
  }
}
