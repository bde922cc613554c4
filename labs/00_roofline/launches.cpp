// Lab 00's launches for the checks of every lab (common/launch_catalog.h): the copy and the FMA
// kernel at one element, an odd count and a million.
#include "common/launch_catalog.h"
#include "labs/00_roofline/lab.h"

#include <cstddef>
#include <string>

namespace lab00 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  for (const long long count : {1LL, 1000003LL, 1LL << 20}) {
    catalog.add("copy", std::to_string(count),
                [count] { return describe_copy(static_cast<std::size_t>(count)); });
    catalog.add("fma", std::to_string(count), [count] { return describe_fma(count); });
  }
}

}  // namespace lab00
