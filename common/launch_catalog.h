/// @file launch_catalog.h
/// @brief Every kernel launch a lab makes, described without running it, for the checks that
/// cover every lab: the occupancy calculator against the CUDA runtime
/// (tests/labs/occupancy_api_test.cpp, GPU) and the resource gate (tests/resource_gate/, CPU).
///
/// A lab's declaration (labs/NN_name/lab.json) names its `launches` file, which defines
/// `labNN::describe_launches(LaunchCatalog&)`: its variants at the problems worth checking (square,
/// odd, huge, and where a variant's choice of kernel changes). CMake generates the table of the
/// declared labs, declared_labs(), for the programs that check them.
#pragma once

#include "common/gemm_variant.h"

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cudalabs {

/// One launch a lab makes: which variant, at which problem, and how to describe it.
struct CatalogedLaunch {
  std::string variant;  ///< the variant's name, e.g. "async_128x256"
  std::string problem;  ///< the problem it is described at, e.g. "4096x4096x4096"
  /// The kernel and configuration the variant's launch uses; may throw (a description that asks
  /// the GPU for its SM count, run without one).
  std::function<KernelLaunch()> describe;
  /// Why the variant cannot run on the current GPU or build (empty when it can); null for one that
  /// runs on every GPU the suite supports.
  std::string (*unavailable)() = nullptr;
};

/// The launches of one lab, in the order its `launches` file adds them.
class LaunchCatalog {
 public:
  /// One launch.
  void add(std::string variant, std::string problem, std::function<KernelLaunch()> describe,
           std::string (*unavailable)() = nullptr) {
    launches_.push_back({std::move(variant), std::move(problem), std::move(describe), unavailable});
  }

  /// Every variant of `variants` that can describe itself, at every one of `problems`:
  /// `describe(variant, problem)` gives the launch, `label(problem)` names the problem.
  template <class Variant, class Problem, class Describe, class Label>
  void add_variants(std::span<const Variant> variants, const std::vector<Problem>& problems,
                    Describe describe, Label label) {
    for (const Variant& variant : variants) {
      if (variant.describe == nullptr) continue;
      std::string (*unavailable)() = nullptr;
      if constexpr (requires { variant.unavailable; }) unavailable = variant.unavailable;
      for (const Problem& problem : problems) {
        // The variant copied, not referenced: a caller's list may be gone when the launch is
        // described.
        add(
            variant.name, label(problem),
            [variant, problem, describe] { return describe(variant, problem); }, unavailable);
      }
    }
  }

  /// The same for variants whose `describe` takes the problem as it is.
  template <class Variant, class Problem, class Label>
  void add_variants(std::span<const Variant> variants, const std::vector<Problem>& problems,
                    Label label) {
    add_variants(
        variants, problems,
        [](const Variant& variant, const Problem& problem) { return variant.describe(problem); },
        label);
  }

  /// Every launch added so far.
  const std::vector<CatalogedLaunch>& launches() const { return launches_; }

 private:
  std::vector<CatalogedLaunch> launches_;
};

/// A lab's `labNN::describe_launches`.
using LaunchCatalogFiller = void (*)(LaunchCatalog& catalog);

/// One lab as its declaration states it, for the programs that check every lab.
struct DeclaredLab {
  const char* number;  ///< "07"
  const char* folder;  ///< "07_wide_loads"
  const char* family;  ///< "fp32_gemm"
  /// Its launches; null for a lab with no kernels of its own (lab.json's "launches": null).
  LaunchCatalogFiller describe_launches;
};

/// Every declared lab in order (a table CMake generates from labs/NN_name/lab.json into the
/// programs that check them).
std::span<const DeclaredLab> declared_labs();

/// The GEMM problems the GEMM labs' launches are described at: square, odd, and the shapes where
/// lab 07's `best` changes its tile and its split of K.
inline std::vector<GemmShape> catalog_gemm_shapes() {
  return {
      {4096, 4096, 4096}, {1000, 1000, 1000}, {17, 33, 65}, {65536, 64, 3200}, {128, 10240, 6400}};
}

/// "MxNxK", as benchmark names write a GEMM problem.
inline std::string gemm_label(const GemmShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

}  // namespace cudalabs
