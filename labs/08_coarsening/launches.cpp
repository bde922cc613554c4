// Lab 08's launches for the checks of every lab (common/launch_catalog.h): each coarsening factor
// at the seed's two cases and at a small and a large batch of many channels.
#include "common/launch_catalog.h"
#include "labs/08_coarsening/lab.h"

#include <string>
#include <vector>

namespace lab08 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  std::vector<cudalabs::ConvShape> shapes = {{1, 64, 64, 64, 64, 3, 3},
                                             {8, 32, 32, 256, 128, 5, 5}};
  for (const SeedCase& seed_case : kSeedCases) shapes.push_back(seed_case.shape);
  catalog.add_variants(variants(), shapes, [](const cudalabs::ConvShape& s) {
    return std::to_string(s.n) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) + "x" +
           std::to_string(s.c) + "/" + std::to_string(s.f) + "x" + std::to_string(s.r) + "x" +
           std::to_string(s.s);
  });
}

}  // namespace lab08
