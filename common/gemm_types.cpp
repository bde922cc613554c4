#include "common/gemm_types.h"

#include "common/argument_checks.h"

#include <limits>
#include <stdexcept>

namespace cudalabs {

std::string GemmShape::label() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

namespace {
int parse_dimension(const std::string& flag, const std::string& item, const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || value < 1 || value > (1 << 20)) {
    throw std::invalid_argument(flag + ": invalid shape '" + item +
                                "' (expected N or MxNxK, sizes from 1 to 1048576)");
  }
  return static_cast<int>(value);
}
}  // namespace

std::vector<GemmShape> parse_gemm_shapes(const std::string& flag, const std::string& text) {
  std::vector<GemmShape> shapes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (true) {
      const std::size_t x = item.find('x', from);
      parts.push_back(item.substr(from, x == std::string::npos ? std::string::npos : x - from));
      if (x == std::string::npos) break;
      from = x + 1;
    }
    if (parts.size() == 1) {
      const int size = parse_dimension(flag, item, parts[0]);
      shapes.push_back({size, size, size});
    } else if (parts.size() == 3) {
      shapes.push_back({parse_dimension(flag, item, parts[0]),
                        parse_dimension(flag, item, parts[1]),
                        parse_dimension(flag, item, parts[2])});
    } else {
      parse_dimension(flag, item, "");  // throws with the item named
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

std::int64_t matrix_span(int rows, int cols, int ld) {
  if (rows < 1)
    throw std::invalid_argument("matrix_span: rows = " + std::to_string(rows) + " must be >= 1");
  if (cols < 1)
    throw std::invalid_argument("matrix_span: cols = " + std::to_string(cols) + " must be >= 1");
  if (ld < cols) {
    throw std::invalid_argument("matrix_span: ld = " + std::to_string(ld) +
                                " is smaller than cols = " + std::to_string(cols));
  }
  return static_cast<std::int64_t>(rows - 1) * ld + cols;
}

namespace {

void require_leading_dimension(const std::string& who, const char* name, int ld,
                               const char* row_name, int row_length) {
  if (ld < row_length) {
    throw std::invalid_argument(who + ": " + name + " = " + std::to_string(ld) +
                                " is smaller than " + row_name + " = " +
                                std::to_string(row_length));
  }
}

void require_int_indexable(const std::string& who, const char* matrix, int rows, int cols, int ld) {
  if (matrix_span(rows, cols, ld) > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(who + ": matrix " + matrix + " (" + std::to_string(rows) +
                                " rows, ld = " + std::to_string(ld) +
                                ") has offsets beyond 2^31 - 1, which the kernels' "
                                "32-bit indexing cannot address");
  }
}

}  // namespace

void validate_gemm_shape(const GemmShape& shape, const std::string& who) {
  require_positive(who, "m", shape.m);
  require_positive(who, "n", shape.n);
  require_positive(who, "k", shape.k);
  require_int_indexable(who, "A", shape.m, shape.k, shape.k);
  require_int_indexable(who, "B", shape.k, shape.n, shape.n);
  require_int_indexable(who, "C", shape.m, shape.n, shape.n);
}

void validate_gemm_args(const GemmArgs& args, const std::string& who) {
  require_positive(who, "m", args.m);
  require_positive(who, "n", args.n);
  require_positive(who, "k", args.k);
  require_leading_dimension(who, "lda", args.lda, "k", args.k);
  require_leading_dimension(who, "ldb", args.ldb, "n", args.n);
  require_leading_dimension(who, "ldc", args.ldc, "n", args.n);
  if (args.a == nullptr) throw std::invalid_argument(who + ": pointer a is null");
  if (args.b == nullptr) throw std::invalid_argument(who + ": pointer b is null");
  if (args.c == nullptr) throw std::invalid_argument(who + ": pointer c is null");
  require_int_indexable(who, "A", args.m, args.k, args.lda);
  require_int_indexable(who, "B", args.k, args.n, args.ldb);
  require_int_indexable(who, "C", args.m, args.n, args.ldc);
}

}  // namespace cudalabs
