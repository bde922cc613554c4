#include "common/json_record.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace cudalabs {

namespace {

std::string repository_or_default(const std::string& repository) {
  return repository.empty() ? std::string(CUDALABS_SOURCE_DIR) : repository;
}

}  // namespace

std::string recorded_path(const std::string& path, const std::string& repository) {
  if (path.empty() || path.front() != '/') return path;
  const std::filesystem::path root =
      std::filesystem::path(repository_or_default(repository)).lexically_normal();
  const std::filesystem::path absolute = std::filesystem::path(path).lexically_normal();
  const std::filesystem::path inside = absolute.lexically_relative(root);
  if (!inside.empty() && *inside.begin() != "..") return inside == "." ? "." : inside.string();
  const std::string name = absolute.has_filename() ? absolute.filename().string()
                                                   : absolute.parent_path().filename().string();
  return "<outside>/" + name;
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string recorded_command(int argc, const char* const* argv, const std::string& repository) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    if (argument.rfind("--", 0) == 0 && equals != std::string::npos) {
      argument =
          argument.substr(0, equals + 1) + recorded_path(argument.substr(equals + 1), repository);
    } else {
      argument = recorded_path(argument, repository);
    }
    command += (i > 0 ? " " : "") + argument;
  }
  return command;
}

void write_json_file(const std::string& path, const nlohmann::json& value) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  file << value.dump(1) << "\n";
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace cudalabs
