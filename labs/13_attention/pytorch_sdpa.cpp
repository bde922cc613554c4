#include "pytorch_sdpa.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef CUDALABS_SOURCE_DIR
#define CUDALABS_SOURCE_DIR ""
#endif

namespace lab13_library {

namespace {

namespace fs = std::filesystem;

// `text` quoted for sh: inside single quotes, each ' written as '\''.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs `command` through sh, its stdout and stderr together; returns (exit status, output).
std::pair<int, std::string> run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr)
    output += buffer.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// The last non-empty line of `text` (a Python traceback's error).
std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.empty() ? "no output" : last;
}

}  // namespace

std::optional<SdpaTiming> SdpaResults::find(const std::string& backend,
                                            const std::string& shape) const {
  const auto b = by_backend.find(backend);
  if (b == by_backend.end()) return std::nullopt;
  const auto s = b->second.find(shape);
  if (s == b->second.end()) return std::nullopt;
  return s->second;
}

SdpaResults time_pytorch_sdpa(const std::vector<std::string>& shapes, int repetitions,
                              double settle_ms, const std::string& results_dir) {
  SdpaResults results;
  // The script in the source tree this build was configured from, else in the current folder's
  // (a build carried to another machine and run from the repository's root).
  fs::path script = fs::path(CUDALABS_SOURCE_DIR) / "tools" / "pytorch_attention.py";
  if (std::string(CUDALABS_SOURCE_DIR).empty() || !fs::is_regular_file(script))
    script = fs::current_path() / "tools" / "pytorch_attention.py";
  if (!fs::is_regular_file(script)) {
    results.skipped["all"] =
        "tools/pytorch_attention.py is neither in the source tree this build "
        "was configured from (" CUDALABS_SOURCE_DIR ") nor in the current folder";
    return results;
  }
  const char* chosen = std::getenv("CUDALABS_PYTHON");
  const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : "python3";
  const bool temporary = results_dir.empty();
  const fs::path dir =
      temporary ? fs::temp_directory_path() / ("lab13_sdpa_" + std::to_string(::getpid()))
                : fs::path(results_dir);
  std::string list;
  for (const std::string& shape : shapes) list += (list.empty() ? "" : ",") + shape;

  const std::string why_python = " (CUDALABS_PYTHON names the interpreter; now " + python + ")";
  const auto [probe_status, probe] = run_command(shell_quoted(python) +
                                                 " -c 'import torch; print(torch.__version__, "
                                                 "torch.cuda.is_available())'");
  if (probe_status == 127) {
    results.skipped["all"] = python + " was not found" + why_python;
    return results;
  }
  if (probe_status != 0) {
    results.skipped["all"] =
        "PyTorch is not installed for " + python + ": " + last_line(probe) + why_python;
    return results;
  }
  if (last_line(probe).find("True") == std::string::npos) {
    results.skipped["all"] = "PyTorch " + last_line(probe) + " sees no CUDA GPU" + why_python;
    return results;
  }

  fs::create_directories(dir);
  const auto [status, output] = run_command(
      shell_quoted(python) + " " + shell_quoted(script.string()) + " bench --shapes " +
      shell_quoted(list) + " --repetitions " + std::to_string(repetitions) + " --settle-ms " +
      std::to_string(std::lround(settle_ms)) + " --results-dir " + shell_quoted(dir.string()));
  fs::path record;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lab13_pytorch_", 0) == 0 && entry.path().extension() == ".json")
      record = entry.path();
  }
  if (record.empty()) {
    results.skipped["all"] = "tools/pytorch_attention.py bench exited " + std::to_string(status) +
                             " without a record: " + last_line(output);
  } else {
    std::ifstream file(record);
    const nlohmann::json json = nlohmann::json::parse(file);
    results.torch_version = json["context"].value("torch", "");
    for (const auto& [key, why] : json["context"]["skipped"].items())
      results.skipped[key] = why.get<std::string>();
    for (const nlohmann::json& entry : json["benchmarks"]) {
      const std::string name = entry["run_name"];  // pytorch_<backend>/<shape>
      const std::size_t slash = name.find('/');
      const std::string backend =
          name.substr(std::string("pytorch_").size(), slash - std::string("pytorch_").size());
      results.by_backend[backend][name.substr(slash + 1)] = {entry["real_time"], entry["gflops"]};
    }
    if (!temporary) results.record = record.string();
  }
  if (temporary) fs::remove_all(dir);
  return results;
}

}  // namespace lab13_library
