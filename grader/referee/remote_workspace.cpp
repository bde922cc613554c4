#include "grader/referee/remote_workspace.h"

#include <stdexcept>

namespace grader::referee {

std::size_t remote_workspace_bytes(RemoteRunner& runner, const Call& call, std::size_t cap,
                                   const std::string& problem) {
  const std::vector<std::vector<std::uint8_t>> results = runner.run({call});
  if (results.size() != 1 || results[0].size() != 8)
    throw std::runtime_error("malformed reply to " + call.function + " " + call.variant);
  std::uint64_t bytes = 0;
  for (int i = 7; i >= 0; --i) bytes = (bytes << 8) | results[0][static_cast<std::size_t>(i)];
  if (bytes > cap) {
    throw std::runtime_error(call.variant + ": workspace_bytes asks for " + std::to_string(bytes) +
                             " bytes on " + problem + ", more than the " + std::to_string(cap) +
                             " the grader allows for it");
  }
  return static_cast<std::size_t>(bytes);
}

}  // namespace grader::referee
