#include "common/variant_choice.h"

#include <algorithm>
#include <stdexcept>

namespace cudalabs {

void print_variant_list(std::ostream& out, std::span<const VariantName> variants) {
  for (const VariantName& variant : variants)
    out << variant.name << "\t" << variant.summary << "\n";
}

void require_known_variants(const std::vector<std::string>& chosen,
                            std::span<const VariantName> variants) {
  for (const std::string& name : chosen) {
    const bool known = std::any_of(variants.begin(), variants.end(),
                                   [&](const VariantName& v) { return v.name == name; });
    if (known) continue;
    std::string list;
    for (const VariantName& v : variants) list += (list.empty() ? "" : ", ") + v.name;
    throw std::invalid_argument("--variant: unknown variant '" + name + "' (known: " + list + ")");
  }
}

bool is_chosen(const std::vector<std::string>& chosen, std::string_view name) {
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), name) != chosen.end();
}

}  // namespace cudalabs
