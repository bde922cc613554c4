/// @file grader/referee/remote_variants.h
/// @brief A GEMM lab's variant list as the referee sees it: the names the grader gave
/// (given_variants.h), each launch made in the runner on the student's variant of that name, each
/// availability decided by the grader.
#pragma once

#include "common/gemm_variant.h"
#include "grader/referee/given_variants.h"
#include "grader/referee/remote_gemm.h"

#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace grader::referee {

inline constexpr int kMaxRemoteVariants = 32;

template <class Input, const char* List, int I>
void forward_gemm_variant(const cudalabs::GemmArgsOf<Input>& args, cudaStream_t stream) {
  remote_gemm<Input>(gemm_remote::GemmVariant<List>{.variant = given_variant_names(List).at(I)},
                     args, stream);
}

template <const char* List, int I>
std::string forward_unavailable() {
  return unavailable_reason(given_variant_names(List).at(I));
}

template <class Input, const char* List, int... I>
std::vector<cudalabs::GemmVariantOf<Input>> remote_gemm_table(std::integer_sequence<int, I...>) {
  constexpr cudalabs::GemmLauncherOf<Input> launchers[] = {
      &forward_gemm_variant<Input, List, I>...};
  constexpr std::string (*availability[])() = {&forward_unavailable<List, I>...};
  const std::vector<std::string>& names = given_variant_names(List);
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more variants than the referee forwards");
  std::vector<cudalabs::GemmVariantOf<Input>> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.push_back(
        {names[i].c_str(), "made in the runner", launchers[i], nullptr, availability[i]});
  return table;
}

/// The lab's list `List` of variants (gemm_remote::kVariants, kFp16Variants), forwarded: each
/// launch the call gemm_remote::GemmVariant<List>.
template <class Input, const char* List = gemm_remote::kVariants>
std::span<const cudalabs::GemmVariantOf<Input>> remote_gemm_variants() {
  static const std::vector<cudalabs::GemmVariantOf<Input>> table =
      remote_gemm_table<Input, List>(std::make_integer_sequence<int, kMaxRemoteVariants>{});
  return table;
}

}  // namespace grader::referee
