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

std::string GemmLayout::suffix() const {
  std::string text;
  const auto part = [&text](const char* name, int value) {
    text += std::string("_") + name + "+" + std::to_string(value);
  };
  if (lda_padding == ldb_padding && ldb_padding == ldc_padding) {
    if (lda_padding != 0) part("ld", lda_padding);
  } else {
    if (lda_padding != 0) part("lda", lda_padding);
    if (ldb_padding != 0) part("ldb", ldb_padding);
    if (ldc_padding != 0) part("ldc", ldc_padding);
  }
  if (pointer_offset != 0) part("off", pointer_offset);
  return text;
}

namespace {

constexpr int kMaxLayoutValue = 1024;

// One "_name+value" part of a problem's layout, applied to `layout`.
void apply_layout_part(const std::string& flag, const std::string& item, const std::string& part,
                       GemmLayout& layout) {
  const std::size_t plus = part.find('+');
  const std::string name = part.substr(0, plus);
  long long value = -1;
  if (plus != std::string::npos) {
    const std::string digits = part.substr(plus + 1);
    std::size_t used = 0;
    try {
      value = std::stoll(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (digits.empty() || used != digits.size() || digits[0] == '-' || digits[0] == '+') value = -1;
  }
  int* target = name == "lda"   ? &layout.lda_padding
                : name == "ldb" ? &layout.ldb_padding
                : name == "ldc" ? &layout.ldc_padding
                : name == "off" ? &layout.pointer_offset
                                : nullptr;
  if ((target == nullptr && name != "ld") || value < 0 || value > kMaxLayoutValue) {
    throw std::invalid_argument(flag + ": invalid layout '" + part + "' in '" + item +
                                "' (expected ld+P, lda+P, ldb+P, ldc+P or off+O, from 0 to " +
                                std::to_string(kMaxLayoutValue) + ")");
  }
  const int v = static_cast<int>(value);
  if (target != nullptr) {
    *target = v;
  } else {
    layout.lda_padding = layout.ldb_padding = layout.ldc_padding = v;
  }
}

}  // namespace

std::vector<GemmProblem> parse_gemm_problems(const std::string& flag, const std::string& text) {
  std::vector<GemmProblem> problems;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t underscore = item.find('_');
    if (item.empty() || underscore == 0) parse_gemm_shapes(flag, "");  // throws naming the flag
    GemmProblem problem{parse_gemm_shapes(flag, item.substr(0, underscore)).front(), {}};
    for (std::size_t from = underscore; from != std::string::npos;) {
      const std::size_t next = item.find('_', from + 1);
      apply_layout_part(flag, item,
                        item.substr(from + 1, next == std::string::npos ? next : next - from - 1),
                        problem.layout);
      from = next;
    }
    problems.push_back(problem);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return problems;
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

void validate_gemm_problem(const GemmProblem& problem, const std::string& who) {
  validate_gemm_shape(problem.shape, who);
  const GemmShape& s = problem.shape;
  const int offset = problem.layout.pointer_offset;
  auto require_fits = [&](const char* matrix, int rows, int cols, int ld) {
    if (matrix_span(rows, cols, ld) + offset > std::numeric_limits<int>::max()) {
      throw std::invalid_argument(who + ": matrix " + matrix + " of " + problem.label() +
                                  " has offsets beyond 2^31 - 1, which the kernels' 32-bit "
                                  "indexing cannot address");
    }
  };
  require_fits("A", s.m, s.k, problem.lda());
  require_fits("B", s.k, s.n, problem.ldb());
  require_fits("C", s.m, s.n, problem.ldc());
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
