/// @file json_record.h
/// @brief The one way the drivers write records: JSON through nlohmann/json, and command lines and
/// paths written relative to the repository, so that a record says nothing about the machine's
/// folders.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace cudalabs {

/// `path` as a record keeps it: relative to the repository when it lies inside it ("build-gpu/labs/
/// lab07_solution"), `<outside>/NAME` (its last component) when it is absolute and outside,
/// unchanged when it is relative. `repository` is the repository's root (default: the one this was
/// built from).
std::string recorded_path(const std::string& path, const std::string& repository = "");

/// The command line as a record keeps it: the arguments joined by spaces, each path among them (an
/// argument, or the value of `--flag=VALUE`) through recorded_path.
std::string recorded_command(int argc, const char* const* argv, const std::string& repository = "");

/// The time now in UTC as records date themselves: "2026-11-29T05:30:11Z" (ISO 8601).
std::string utc_timestamp();

/// Writes `value` to `path` as JSON indented by one space, ending in a newline; throws
/// std::runtime_error naming the path when the file cannot be written.
void write_json_file(const std::string& path, const nlohmann::json& value);

}  // namespace cudalabs
