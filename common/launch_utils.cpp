#include "common/launch_utils.h"

#include <stdexcept>

namespace cudalabs {

dim3 checked_grid(long long x, long long y, long long z, const std::string& who) {
  auto require = [&](const char* axis, long long value, long long limit) {
    if (value < 1 || value > limit) {
      throw std::invalid_argument(who + ": grid." + axis + " = " + std::to_string(value) +
                                  " is outside 1.." + std::to_string(limit) +
                                  "; the problem is too large for this kernel's grid");
    }
  };
  require("x", x, 2147483647LL);
  require("y", y, 65535);
  require("z", z, 65535);
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z));
}

}  // namespace cudalabs
