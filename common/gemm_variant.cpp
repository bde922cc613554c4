#include "common/gemm_variant.h"

#include <stdexcept>

namespace cudalabs {

std::string variant_names(std::span<const GemmVariant> all) {
  std::string names;
  for (const GemmVariant& variant : all) {
    if (!names.empty()) names += ", ";
    names += variant.name;
  }
  return names;
}

std::vector<const GemmVariant*> select_variants(std::span<const GemmVariant> all,
                                                const std::vector<std::string>& names) {
  std::vector<const GemmVariant*> selected;
  if (names.empty()) {
    for (const GemmVariant& variant : all) selected.push_back(&variant);
    return selected;
  }
  for (const std::string& name : names) {
    const GemmVariant* found = nullptr;
    for (const GemmVariant& variant : all) {
      if (name == variant.name) found = &variant;
    }
    if (found == nullptr) {
      throw std::invalid_argument("--variant: unknown variant '" + name +
                                  "' (known: " + variant_names(all) + ")");
    }
    selected.push_back(found);
  }
  return selected;
}

}  // namespace cudalabs
