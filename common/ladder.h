/// @file ladder.h
/// @brief A ladder of variants through the driver kit's protocol: every chosen variant through each
/// of the lab's checks (the timed problem first, then odd and misaligned ones), one line per check
/// and one verdict per variant; then each passing one timed in its buffers and rechecked there.
#pragma once

#include "common/gemm_check.h"
#include "common/lab_driver.h"
#include "common/random_fill.h"
#include "common/run_protocol.h"
#include "common/variant_choice.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cudalabs {

/// One variant's verdict over all its checks. `Report` is the lab's report type (it has `outcome`
/// and `message`); `timed` is the first check's, on the timed problem (its error goes in tables).
template <class Report>
struct CheckedVariant {
  std::string name;                                      ///< the variant's name
  CheckOutcome outcome = CheckOutcome::kNotImplemented;  ///< combine_outcomes over its checks
  std::string skipped;  ///< why it cannot run here (then nothing was checked)
  Report timed{};       ///< the report of the first check
  /// True when the variant is to be timed: checked and passed.
  bool passed() const { return skipped.empty() && outcome == CheckOutcome::kPassed; }
};

/// Checks each variant of `variants` that `chosen` names with every one of `checks`, printing
/// "  <message>" per check on `out`. A variant `unavailable` gives a reason for is skipped with one
/// line. Clears `all_passed` when a variant does not pass.
template <class Report, class Variant>
std::vector<CheckedVariant<Report>> check_ladder(
    std::ostream& out, const std::vector<std::string>& chosen, std::span<const Variant> variants,
    const std::vector<std::function<Report(const Variant&)>>& checks, bool& all_passed,
    const std::function<std::string(const Variant&)>& unavailable = {}) {
  std::vector<CheckedVariant<Report>> checked;
  for (const Variant& variant : variants) {
    if (!is_chosen(chosen, variant.name)) continue;
    CheckedVariant<Report> row;
    row.name = variant.name;
    row.skipped = unavailable ? unavailable(variant) : std::string();
    if (!row.skipped.empty()) {
      out << "  " << variant.name << ": skipped: " << row.skipped << "\n";
      checked.push_back(std::move(row));
      continue;
    }
    for (std::size_t i = 0; i < checks.size(); ++i) {
      Report report = checks[i](variant);
      out << "  " << report.message << "\n";
      row.outcome = i == 0 ? report.outcome : combine_outcomes(row.outcome, report.outcome);
      if (i == 0) row.timed = std::move(report);
    }
    all_passed = all_passed && row.outcome == CheckOutcome::kPassed;
    checked.push_back(std::move(row));
  }
  return checked;
}

/// check_ladder with verifiers of one type, each with `Report check(const Variant&)`.
template <class Variant, class Verifier,
          class Report = decltype(std::declval<Verifier&>().check(std::declval<const Variant&>()))>
std::vector<CheckedVariant<Report>> check_ladder(std::ostream& out,
                                                 const std::vector<std::string>& chosen,
                                                 std::span<const Variant> variants,
                                                 const std::vector<Verifier*>& verifiers,
                                                 bool& all_passed) {
  std::vector<std::function<Report(const Variant&)>> checks;
  for (Verifier* verifier : verifiers)
    checks.push_back([verifier](const Variant& variant) { return verifier->check(variant); });
  return check_ladder<Report, Variant>(out, chosen, variants, checks, all_passed);
}

/// The row of `name` in `checked`, or null.
template <class Report>
const CheckedVariant<Report>* find_checked(const std::vector<CheckedVariant<Report>>& checked,
                                           const std::string& name) {
  for (const CheckedVariant<Report>& row : checked)
    if (row.name == name) return &row;
  return nullptr;
}

/// A lab's check report as a recheck (its `outcome` and `message`).
template <class Report>
Recheck recheck_of_report(const Report& report) {
  return {report.outcome == CheckOutcome::kPassed, report.message};
}

/// Adds every variant of `ladder` that passed its checks (`checked`) to the driver's timed runs as
/// "<lab>/<variant>/<problem>": launched with `args_of(variant)` (its timed buffers, allocated
/// there), then rechecked by `check_in_timed_buffers(variant, args, seed)`, a fresh seed per run.
/// `Variant` has `name` and `launch(const Args&, cudaStream_t)`.
template <class Variant, class Report, class ArgsOf, class CheckInTimedBuffers>
void add_ladder_runs(LabDriver& driver, std::span<const Variant> ladder,
                     const std::vector<CheckedVariant<Report>>& checked, const std::string& problem,
                     double flops, double bytes, const ArgsOf& args_of,
                     const CheckInTimedBuffers& check_in_timed_buffers) {
  for (const Variant& variant : ladder) {
    const CheckedVariant<Report>* row = find_checked(checked, variant.name);
    if (row == nullptr || !row->passed()) continue;
    const auto args = args_of(variant);
    const std::string name = driver.lab().id + "/" + variant.name + "/" + problem;
    const std::uint64_t seed = driver.seed_for("recheck " + name);
    driver.add_timed({name,
                      [&variant, args](cudaStream_t stream) { variant.launch(args, stream); },
                      flops,
                      bytes,
                      {},
                      [&variant, args, seed, check_in_timed_buffers] {
                        return recheck_of_report(check_in_timed_buffers(variant, args, seed));
                      }});
  }
}

}  // namespace cudalabs
