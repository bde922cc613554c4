// Reads "m n k vec" lines; prints, per shape, the chosen plan and every candidate plan with its
// prediction.
#include <cstdio>
#include <string>
#include "labs/07_wide_loads/best_plan.h"
using namespace lab07;
static std::string name_of(const BestPlan& p) {
  std::string s = p.candidate->name;
  if (p.splits > 1) s += "/split" + std::to_string(p.splits);
  if (p.stream_k()) s += "/stream";
  return s;
}
int main() {
  int m, n, k, v;
  while (std::scanf("%d %d %d %d", &m, &n, &k, &v) == 4) {
    cudalabs::GemmShape s{m, n, k};
    BestPlan b = plan_best(s, 132, v != 0);
    std::printf("S %d %d %d %d %s %.6f\n", m, n, k, v, name_of(b).c_str(), b.predicted_us);
    for (const BestPlan& p : candidate_plans(s, 132, v != 0))
      std::printf("P %s %.6f\n", name_of(p).c_str(), p.predicted_us);
  }
}
