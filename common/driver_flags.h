/// @file driver_flags.h
/// @brief The flags every lab driver shares (variant choice, timing, seed, checks only, records),
/// registered once so that each keeps one name, one default and one range across the labs.
#pragma once

#include "common/benchmark_support.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cudalabs {

/// What the shared flags set.
struct DriverOptions {
  std::vector<std::string> variants;  ///< --variant NAME (repeatable); empty: every variant
  std::vector<int> numbers;  ///< the number flag's values (repeatable); empty: every variant
  TimingOptions timing;      ///< --repetitions, --min-time, --warmups
  std::string seed_text;     ///< --seed, as given (choose_seed reads it)
  bool verify_only = false;  ///< --verify-only: check, time nothing
  bool list = false;         ///< --list: print the variants and exit
  std::string results_dir;   ///< --results-dir DIR: write the record there
  std::string results_tag;   ///< --results-tag TAG: name the record labNN_TAG_<device>
};

/// Which shared flags a driver offers and how its help names what it checks.
struct DriverFlags {
  std::string lab_id;               ///< "lab12": the record's file name starts with it
  std::string checked = "variant";  ///< what one row is: "variant", "factor", "kernel"
  bool variant_flag = true;         ///< --variant (lab 08 chooses by --factor instead)
  /// Variants chosen by a number of theirs instead of by name (lab 08's "--factor"), or "": the
  /// flag's name, its help and the numbers it takes (ascending).
  std::string number_flag;
  std::string number_help;       ///< see number_flag
  std::vector<int> numbers;      ///< see number_flag
  bool list_flag = true;         ///< --list
  bool seed_flag = true;         ///< --seed (without it: CUDALABS_SEED or fresh)
  bool min_time_flag = true;     ///< --min-time (off for host-timed runs: a fixed count)
  bool warmups_flag = true;      ///< --warmups
  bool results_tag_flag = true;  ///< --results-tag
};

/// Registers the shared flags `flags` names on `app`, writing into `options`:
/// --variant (or the number flag), --repetitions [1, 1000] (its default: `options`' value),
/// --min-time [0, 60], --warmups
/// [0, 1000], --seed, --verify-only, --list, --results-dir, --results-tag.
void add_driver_flags(CLI::App& app, DriverOptions& options, const DriverFlags& flags);

/// One value of a number flag: an integer from `numbers.front()` to `numbers.back()`, and one of
/// `numbers`; FlagError naming `flag` and the value otherwise ("--factor: invalid value '3'
/// (expected 1, 2, 4, 8, 16 or 32)").
int parse_number_choice(const std::string& flag, const std::string& text,
                        const std::vector<int>& numbers);

/// The largest --seed a driver takes.
inline constexpr long long kMaxSeed = 1LL << 62;

/// The run's seed: `seed_text` (--seed) as an integer in [0, kMaxSeed], or run_seed() when empty
/// (CUDALABS_SEED, else fresh). FlagError naming --seed and the value otherwise.
std::uint64_t choose_seed(const std::string& seed_text);

}  // namespace cudalabs
