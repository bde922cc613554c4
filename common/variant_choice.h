/// @file variant_choice.h
/// @brief --variant and --list over a lab's variant tables: which variants a run names, refused in
/// one line when a name is unknown, and the list a driver prints.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs {

/// A variant as --list shows it.
struct VariantName {
  std::string name;     ///< what --variant, tables and benchmark names call it
  std::string summary;  ///< one line: what the variant changes
};

/// The names of a variant table (any struct with `name` and `summary`), appended to `names`: a lab
/// of several ladders lists them one after the other.
template <class Variant>
void append_variant_names(std::vector<VariantName>& names, std::span<const Variant> variants) {
  for (const Variant& variant : variants) names.push_back({variant.name, variant.summary});
}

/// The names of several variant tables, one after the other (a lab of several ladders).
template <class... Variants>
std::vector<VariantName> variant_names(std::span<const Variants>... ladders) {
  std::vector<VariantName> names;
  (append_variant_names(names, ladders), ...);
  return names;
}

/// --list: one line per variant, "name<TAB>summary".
void print_variant_list(std::ostream& out, std::span<const VariantName> variants);

/// Throws std::invalid_argument for the first of `chosen` that no variant is called:
/// "--variant: unknown variant 'x' (known: a, b, c)".
void require_known_variants(const std::vector<std::string>& chosen,
                            std::span<const VariantName> variants);

/// True when `chosen` (--variant) is empty (every variant runs) or names `name`.
bool is_chosen(const std::vector<std::string>& chosen, std::string_view name);

/// True when `chosen` names any variant of the table.
template <class Variant>
bool any_chosen(const std::vector<std::string>& chosen, std::span<const Variant> variants) {
  for (const Variant& variant : variants)
    if (is_chosen(chosen, variant.name)) return true;
  return false;
}

}  // namespace cudalabs
