// Fits one tile's sm_gflops, fixed_us and scalar_rate (argv[1], default async_64x64) to measured
// plan times: stdin lines "m n k splits stream_blocks vector measured_us"; prints the best triple
// and errors.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "labs/07_wide_loads/best_plan.h"
int main(int argc, char** argv) {
  struct Row {
    int m, n, k, splits, stream;
    int vector;
    double us;
  };
  std::vector<Row> rows;
  Row r;
  while (std::scanf("%d %d %d %d %d %d %lf", &r.m, &r.n, &r.k, &r.splits, &r.stream, &r.vector,
                    &r.us) == 7)
    rows.push_back(r);
  const lab07::TileCandidate* base = nullptr;
  for (const auto& c : lab07::best_candidates())
    if (std::string(c.name) == (argc > 1 ? argv[1] : "async_64x64")) base = &c;
  auto err = [&](const lab07::TileCandidate& c) {
    double e = 0;
    for (const Row& x : rows) {
      cudalabs::GemmShape s{x.m, x.n, x.k};
      double p = x.stream ? lab07::predicted_stream_k_us(c, s, 132, x.vector)
                          : lab07::predicted_us(c, s, x.splits, 132, x.vector);
      e += std::fabs(std::log(p / x.us));
    }
    return e / rows.size();
  };
  std::printf("rows %zu; current constants (%.0f, %.2f, %.3f): mean |log error| %.3f\n",
              rows.size(), base->sm_gflops, base->fixed_us, base->scalar_rate, err(*base));
  lab07::TileCandidate best = *base;
  double be = 1e9;
  for (double g = 150; g <= 600; g += 5)
    for (double f = 0; f <= 6; f += 0.1)
      for (double sr = 0.70; sr <= 1.0001; sr += 0.01) {
        lab07::TileCandidate c = *base;
        c.sm_gflops = g;
        c.fixed_us = f;
        c.scalar_rate = sr;
        double e = err(c);
        if (e < be) {
          be = e;
          best = c;
        }
      }
  std::printf("fit: sm_gflops %.0f fixed_us %.1f scalar_rate %.2f: mean |log error| %.3f\n",
              best.sm_gflops, best.fixed_us, best.scalar_rate, be);
}
