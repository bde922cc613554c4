#include "common/gemm_types.h"

#include "common/argument_checks.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

namespace cudalabs {

std::string GemmShape::label() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

namespace {

// The pieces of `text` between separators: "a,b" -> {"a", "b"}; "" -> {""}.
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos;
       at = text.find(separator, start)) {
    pieces.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// `text` as a whole decimal number from low to high, or -1 when it is not one.
long long parse_count(const std::string& text, long long low, long long high) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return -1;
  std::size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return -1;
  }
  return used == text.size() && value >= low && value <= high ? value : -1;
}

// "N" (a cube) or "MxNxK".
GemmShape parse_shape_item(const std::string& flag, const std::string& item) {
  std::vector<int> sizes;
  for (const std::string& part : split(item, 'x')) {
    sizes.push_back(static_cast<int>(parse_count(part, 1, 1 << 20)));
  }
  const bool valid = (sizes.size() == 1 || sizes.size() == 3) &&
                     std::all_of(sizes.begin(), sizes.end(), [](int s) { return s > 0; });
  if (!valid) {
    throw std::invalid_argument(flag + ": invalid shape '" + item +
                                "' (expected N or MxNxK, sizes from 1 to 1048576)");
  }
  return sizes.size() == 1 ? GemmShape{sizes[0], sizes[0], sizes[0]}
                           : GemmShape{sizes[0], sizes[1], sizes[2]};
}

constexpr int kMaxLayoutValue = 1024;

// One "name+value" part of a problem's layout, applied to `layout`.
void apply_layout_part(const std::string& flag, const std::string& item, const std::string& part,
                       GemmLayout& layout) {
  const std::size_t plus = part.find('+');
  const std::string name = part.substr(0, plus);
  const long long value =
      plus == std::string::npos ? -1 : parse_count(part.substr(plus + 1), 0, kMaxLayoutValue);
  int* target = name == "lda"   ? &layout.lda_padding
                : name == "ldb" ? &layout.ldb_padding
                : name == "ldc" ? &layout.ldc_padding
                : name == "off" ? &layout.pointer_offset
                                : nullptr;
  if ((target == nullptr && name != "ld") || value < 0) {
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

std::vector<GemmShape> parse_gemm_shapes(const std::string& flag, const std::string& text) {
  std::vector<GemmShape> shapes;
  for (const std::string& item : split(text, ',')) shapes.push_back(parse_shape_item(flag, item));
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

std::vector<GemmProblem> parse_gemm_problems(const std::string& flag, const std::string& text) {
  std::vector<GemmProblem> problems;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> parts = split(item, '_');
    GemmProblem problem{parse_shape_item(flag, parts.front()), {}};
    for (std::size_t i = 1; i < parts.size(); ++i) {
      apply_layout_part(flag, item, parts[i], problem.layout);
    }
    problems.push_back(problem);
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

void validate_gemm_problem(const GemmProblem& problem, const std::string& who) {
  const GemmShape& s = problem.shape;
  require_positive(who, "m", s.m);
  require_positive(who, "n", s.n);
  require_positive(who, "k", s.k);
  require_int_indexable(who, "A", s.m, s.k, problem.lda());
  require_int_indexable(who, "B", s.k, s.n, problem.ldb());
  require_int_indexable(who, "C", s.m, s.n, problem.ldc());
}

void validate_gemm_shape(const GemmShape& shape, const std::string& who) {
  validate_gemm_problem({shape, {}}, who);
}

template <class Input>
void validate_gemm_args(const GemmArgsOf<Input>& args, const std::string& who) {
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

template void validate_gemm_args(const GemmArgs&, const std::string&);
template void validate_gemm_args(const Bf16GemmArgs&, const std::string&);
template void validate_gemm_args(const Fp16GemmArgs&, const std::string&);

}  // namespace cudalabs
