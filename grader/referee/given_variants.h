/// @file grader/referee/given_variants.h
/// @brief Which variants a lab has, and which of them this GPU cannot run: told to the referee by
/// the grader, from the rubric and the GPU's capability (CUDALABS_VARIANTS, a JSON object: list
/// name -> array of names, e.g. {"variants": [...], "fp16_variants": [...]}; CUDALABS_UNAVAILABLE,
/// a JSON object name -> reason). The student's code is never asked.
#pragma once

#include <string>
#include <vector>

namespace grader::referee {

/// The names of the lab's list `list` ("variants", the function lab.h declares), in order (empty
/// for a list the grader does not name); throws std::runtime_error when CUDALABS_VARIANTS is unset.
const std::vector<std::string>& given_variant_names(const std::string& list = "variants");
/// Whether the grader's list `list` names `variant`.
bool is_given_variant(const std::string& list, const std::string& variant);
/// Why the grader says `name` cannot run on this GPU, empty when it can.
std::string unavailable_reason(const std::string& name);

}  // namespace grader::referee
