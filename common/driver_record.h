/// @file driver_record.h
/// @brief Where a driver's record goes (--results-dir, --results-tag, --benchmark_out) and the one
/// thing a driver adds to Google Benchmark's JSON: each variant's check after timing.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace cudalabs {

/// The check of one timed variant again after timing, in the buffers it was timed in.
struct Recheck {
  bool passed = false;  ///< the timed launch's outputs were right
  std::string message;  ///< one line: what was checked and what was found
};

/// The Google Benchmark flags that write the record to DIR/LAB_ID_[TAG_]DEVICE_SLUG.json
/// (creating DIR), or none when `results_dir` is empty.
std::vector<std::string> record_output_args(const std::string& results_dir,
                                            const std::string& lab_id, const std::string& tag,
                                            const std::string& device_slug);

/// The JSON file Google Benchmark writes for `benchmark_args` (the last --benchmark_out=FILE, when
/// its format is JSON), or "" when there is none.
std::string record_file_of(const std::vector<std::string>& benchmark_args);

/// The record's "rechecks": benchmark name -> {"passed": bool, "message": text}.
nlohmann::json rechecks_json(const std::map<std::string, Recheck>& rechecks);

/// `text` (Google Benchmark's JSON) with each bare NaN, Infinity and their negatives outside
/// strings written null, the one word JSON has for a number that is not one.
std::string with_non_finite_as_null(const std::string& text);

/// Adds `rechecks` to the record at `path` under the key "rechecks": benchmark name ->
/// {"passed": bool, "message": text}. Every other key is kept as Google Benchmark wrote it, but
/// for its non-finite numbers, null (with_non_finite_as_null).
/// std::runtime_error naming the path when it cannot be read or written.
void add_rechecks_to_record(const std::string& path,
                            const std::map<std::string, Recheck>& rechecks);

}  // namespace cudalabs
