/// @file grader/labs/lab13_remote.h
/// @brief Lab 13's remote functions, declared once for the referee (lab13_proxy.cpp,
/// lab13_workloads.cpp) and the runner (lab13_runner.cpp): grader/remote.h. An attention shape is
/// five members (lab13_shape.h carries lab13::AttentionShape to and from them); a launch's operands
/// may share a buffer (grader/referee/call_operands.h), its workspace is scratch the runner
/// allocates at the size the referee sent (grader/runner/operands.h).
#pragma once

#include "grader/remote.h"

#include <cstdint>
#include <string>

namespace grader::lab13_remote {

/// SoftmaxArgs on the softmax variant of that name: rows x columns floats, in place where input
/// and output share a buffer.
struct Softmax {
  static constexpr const char* kFunction = "lab13.softmax";
  std::string variant;
  int rows, columns;
  remote::Operand input, output;
  static constexpr auto kWire =
      remote::wire(&Softmax::rows, &Softmax::columns, &Softmax::input, &Softmax::output);
};

/// AttentionArgs on the attention variant of that name: O = softmax(scale Q K^T) V.
struct Attention {
  static constexpr const char* kFunction = "lab13.attention";
  std::string variant;
  // The shape, set by lab13_shape.h's with_shape: causal is 0 or 1.
  int batch = 0, heads = 0, sequence = 0, head_dim = 0;
  std::int64_t causal = 0;
  std::int64_t workspace_bytes, workspace_present, workspace_poisoned;
  double scale;
  remote::Operand q, k, v, o;
  static constexpr auto kWire =
      remote::wire(&Attention::batch, &Attention::heads, &Attention::sequence, &Attention::head_dim,
                   &Attention::causal, &Attention::workspace_bytes, &Attention::workspace_present,
                   &Attention::workspace_poisoned, &Attention::scale, &Attention::q, &Attention::k,
                   &Attention::v, &Attention::o);
};

/// The attention variant's workspace_bytes(shape), replied as 8 bytes for the referee to cap.
struct AttentionWorkspace {
  static constexpr const char* kFunction = "lab13.attention_workspace";
  std::string variant;
  int batch = 0, heads = 0, sequence = 0, head_dim = 0;  // with_shape sets them
  std::int64_t causal = 0;
  static constexpr auto kWire = remote::wire(
      &AttentionWorkspace::batch, &AttentionWorkspace::heads, &AttentionWorkspace::sequence,
      &AttentionWorkspace::head_dim, &AttentionWorkspace::causal);
};

}  // namespace grader::lab13_remote
