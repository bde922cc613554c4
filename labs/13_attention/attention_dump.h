/// @file labs/13_attention/attention_dump.h
/// @brief Lab 13 driver's --dump-dir: the odd attention problem's inputs and each passing rung's
/// output, raw BF16, for tools/pytorch_attention.py compare.
#pragma once

#include "checks.h"

#include <cuda_bf16.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace lab13 {

/// The odd problem's dump, as tools/pytorch_attention.py compare reads it: the inputs
/// (attention_LABEL.q.bf16, .k, .v) and each passing rung's output
/// (attention_LABEL.o.VARIANT.bf16), raw BF16, and attention_LABEL.json, which describes the
/// problem and names its files ("inputs", "outputs"), rewritten after every output so that a
/// stopped run still describes what it wrote. The tool reads exactly the files named there: the
/// non-causal problem's label is a prefix of the causal one's, and no label or variant name holds a
/// dot.
class AttentionDump {
 public:
  /// Writes the inputs of `verifier` (whose problem is `shape`) to `dir` (created).
  AttentionDump(std::filesystem::path dir, const AttentionVerifier& verifier,
                const AttentionShape& shape);

  /// Writes `variant`'s output and names it in the description.
  void add_output(const std::string& variant, const std::vector<__nv_bfloat16>& output);

 private:
  void write_description() const;

  std::filesystem::path dir_;
  std::string stem_;
  AttentionShape shape_;
  float scale_;
  std::vector<std::pair<std::string, std::string>> outputs_;  // (variant, file)
};

}  // namespace lab13
