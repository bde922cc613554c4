/// @file labs/10_multi_gpu_dcgan/not_implemented.h
/// @brief What a part of the MPI program throws until the student writes it.
#pragma once

#include <stdexcept>
#include <string>

namespace lab10 {

/// Thrown by a part of the MPI program that the student has not written yet (checkpoint,
/// NodeOutput, scatter_latents); the program and the tests report it as "not implemented yet".
struct NotImplemented : std::logic_error {
  /// `part` names the function or class, e.g. "checkpoint": "checkpoint: not implemented yet".
  explicit NotImplemented(const char* part)
      : std::logic_error(std::string(part) + ": not implemented yet") {}
};

}  // namespace lab10
