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

// The list each element type's table was made from ("variants", "fp16_variants"): one list per
// type in a lab.
template <class Input>
struct RemoteList {
  static inline std::string name = "variants";
};

template <class Input, int I>
void forward_gemm_variant(const cudalabs::GemmArgsOf<Input>& args, cudaStream_t stream) {
  const std::string& list = RemoteList<Input>::name;
  remote_gemm<Input>("gemm." + list, given_variant_names(list).at(I), args, stream);
}

template <class Input, int I>
std::string forward_unavailable() {
  return unavailable_reason(given_variant_names(RemoteList<Input>::name).at(I));
}

template <class Input, int... I>
std::vector<cudalabs::GemmVariantOf<Input>> remote_gemm_table(std::integer_sequence<int, I...>) {
  constexpr cudalabs::GemmLauncherOf<Input> launchers[] = {&forward_gemm_variant<Input, I>...};
  constexpr std::string (*availability[])() = {&forward_unavailable<Input, I>...};
  const std::vector<std::string>& names = given_variant_names(RemoteList<Input>::name);
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more variants than the referee forwards");
  std::vector<cudalabs::GemmVariantOf<Input>> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.push_back(
        {names[i].c_str(), "made in the runner", launchers[i], nullptr, availability[i]});
  return table;
}

/// The lab's list `list` of variants, forwarded (one list per element type: a referee serves one
/// lab). The runner's handler for it is "gemm.<list>".
template <class Input>
std::span<const cudalabs::GemmVariantOf<Input>> remote_gemm_variants(
    const char* list = "variants") {
  static const std::vector<cudalabs::GemmVariantOf<Input>> table = [list] {
    RemoteList<Input>::name = list;
    return remote_gemm_table<Input>(std::make_integer_sequence<int, kMaxRemoteVariants>{});
  }();
  return table;
}

}  // namespace grader::referee
