#include "common/gemm_variant.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>

namespace cudalabs {

namespace {

template <class Input>
std::string names_of(std::span<const GemmVariantOf<Input>> all) {
  std::string names;
  for (const GemmVariantOf<Input>& variant : all) {
    if (!names.empty()) names += ", ";
    names += variant.name;
  }
  return names;
}

template <class Input>
std::vector<const GemmVariantOf<Input>*> select_from(std::span<const GemmVariantOf<Input>> all,
                                                     const std::vector<std::string>& names) {
  std::vector<const GemmVariantOf<Input>*> selected;
  if (names.empty()) {
    for (const GemmVariantOf<Input>& variant : all) selected.push_back(&variant);
    return selected;
  }
  for (const std::string& name : names) {
    const GemmVariantOf<Input>* found = nullptr;
    for (const GemmVariantOf<Input>& variant : all) {
      if (name == variant.name) found = &variant;
    }
    if (found == nullptr) {
      throw std::invalid_argument("--variant: unknown variant '" + name +
                                  "' (known: " + names_of(all) + ")");
    }
    selected.push_back(found);
  }
  return selected;
}

}  // namespace

std::string variant_names(std::span<const GemmVariant> all) {
  return names_of(all);
}
std::string variant_names(std::span<const GemmVariantOf<__nv_bfloat16>> all) {
  return names_of(all);
}
std::string variant_names(std::span<const GemmVariantOf<__half>> all) {
  return names_of(all);
}
std::vector<const GemmVariant*> select_variants(std::span<const GemmVariant> all,
                                                const std::vector<std::string>& names) {
  return select_from(all, names);
}
std::vector<const GemmVariantOf<__nv_bfloat16>*> select_variants(
    std::span<const GemmVariantOf<__nv_bfloat16>> all, const std::vector<std::string>& names) {
  return select_from(all, names);
}
std::vector<const GemmVariantOf<__half>*> select_variants(
    std::span<const GemmVariantOf<__half>> all, const std::vector<std::string>& names) {
  return select_from(all, names);
}

}  // namespace cudalabs
