/// @file grader/labs/gemm_remote.h
/// @brief The GEMM labs' remote functions (labs 01-07 and 11), declared once for the referee
/// (referee/remote_gemm.h, remote_variants.h, gemm_workload.h) and the runner
/// (runner/gemm_handlers.h): grader/remote.h. Lab 07's plan adds its own (lab07_remote.h).
#pragma once

#include "grader/remote.h"

#include <array>
#include <cstddef>
#include <string>

namespace grader::gemm_remote {

/// The grader's variant lists a GEMM lab has (given_variants.h): its variants(), and lab 11's
/// fp16_variants().
inline constexpr char kVariants[] = "variants";
inline constexpr char kFp16Variants[] = "fp16_variants";

/// A GEMM's arguments as a call carries them (cudalabs::GemmArgs: C = alpha A B + beta C, row
/// major), a group of every GEMM call.
struct GemmOperands {
  int m, n, k, lda, ldb, ldc;
  double alpha, beta;
  remote::Buffer a, b, c;
  static constexpr auto kWire =
      remote::wire(&GemmOperands::m, &GemmOperands::n, &GemmOperands::k, &GemmOperands::lda,
                   &GemmOperands::ldb, &GemmOperands::ldc, &GemmOperands::alpha,
                   &GemmOperands::beta, &GemmOperands::a, &GemmOperands::b, &GemmOperands::c);
  bool operator==(const GemmOperands&) const = default;
};

namespace detail {
// "gemm." followed by the list's name, as one constant.
template <const char* List>
constexpr auto function_of_list() {
  constexpr std::size_t length = std::char_traits<char>::length(List);
  std::array<char, length + 6> name{'g', 'e', 'm', 'm', '.'};
  for (std::size_t i = 0; i < length; ++i) name[5 + i] = List[i];
  return name;
}
template <const char* List>
inline constexpr auto kFunctionOfList = function_of_list<List>();
}  // namespace detail

/// The variant of that name from the student's list `List` (kVariants, kFp16Variants): the call
/// "gemm.<List>".
template <const char* List>
struct GemmVariant {
  static constexpr const char* kList = List;
  static constexpr const char* kFunction = detail::kFunctionOfList<List>.data();
  std::string variant;
  GemmOperands gemm{};  // set by referee/remote_gemm.h
  static constexpr auto kWire = remote::wire(&GemmVariant::gemm);
};

/// The lab's best_gemm(args, stream).
struct GemmBest {
  static constexpr const char* kFunction = "gemm.best";
  GemmOperands gemm{};
  static constexpr auto kWire = remote::wire(&GemmBest::gemm);
};

}  // namespace grader::gemm_remote
