#include "common/argument_checks.h"

#include <stdexcept>

namespace cudalabs {

void require_positive(const std::string& who, const char* name, long long value) {
  if (value < 1)
    throw std::invalid_argument(who + ": " + name + " = " + std::to_string(value) +
                                " must be >= 1");
}

}  // namespace cudalabs
