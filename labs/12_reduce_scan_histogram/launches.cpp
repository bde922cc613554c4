// Lab 12's launches for the checks of every lab (common/launch_catalog.h): every sum, scan and
// histogram at one element, an odd count, 2^26 and past 2^28.
#include "common/launch_catalog.h"
#include "labs/12_reduce_scan_histogram/lab.h"

#include <cstddef>
#include <string>
#include <vector>

namespace lab12 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  const std::vector<std::size_t> counts = {1, 1000003, std::size_t{1} << 26,
                                           (std::size_t{1} << 28) + 3};
  const auto label = [](std::size_t count) { return std::to_string(count); };
  catalog.add_variants(sum_variants(), counts, label);
  catalog.add_variants(scan_variants(), counts, label);
  catalog.add_variants(histogram_variants(), counts, label);
}

}  // namespace lab12
