#include "common/conv_types.h"

#include "common/argument_checks.h"

#include <limits>
#include <sstream>
#include <stdexcept>

namespace cudalabs {

std::string ConvShape::label() const {
  std::ostringstream text;
  text << n << "x" << h << "x" << w << "x" << c << "_f" << f << "x" << r << "x" << s;
  return text.str();
}

namespace {

void require_indexable(const std::string& who, const char* tensor, std::int64_t elements) {
  if (elements > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(who + ": the " + tensor + " has " + std::to_string(elements) +
                                " elements, more than a 32-bit index reaches");
  }
}

}  // namespace

void validate_conv_shape(const ConvShape& shape, const std::string& who) {
  require_positive(who, "n", shape.n);
  require_positive(who, "h", shape.h);
  require_positive(who, "w", shape.w);
  require_positive(who, "c", shape.c);
  require_positive(who, "f", shape.f);
  require_positive(who, "r", shape.r);
  require_positive(who, "s", shape.s);
  if (shape.r > shape.h) {
    throw std::invalid_argument(who + ": r = " + std::to_string(shape.r) +
                                " is taller than the image (h = " + std::to_string(shape.h) + ")");
  }
  if (shape.s > shape.w) {
    throw std::invalid_argument(who + ": s = " + std::to_string(shape.s) +
                                " is wider than the image (w = " + std::to_string(shape.w) + ")");
  }
  require_indexable(who, "input", shape.input_elements());
  require_indexable(who, "filter", shape.filter_elements());
  require_indexable(who, "output", shape.output_elements());
}

void validate_conv_args(const ConvArgs& args, const std::string& who) {
  validate_conv_shape(args.shape, who);
  if (args.input == nullptr) throw std::invalid_argument(who + ": pointer input is null");
  if (args.filter == nullptr) throw std::invalid_argument(who + ": pointer filter is null");
  if (args.output == nullptr) throw std::invalid_argument(who + ": pointer output is null");
}

}  // namespace cudalabs
