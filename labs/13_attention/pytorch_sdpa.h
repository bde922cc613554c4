/// @file labs/13_attention/pytorch_sdpa.h
/// @brief PyTorch's fused attention (torch.nn.functional.scaled_dot_product_attention: the flash,
/// efficient, cuDNN and math backends) timed in the same run as lab 13's kernels: the drivers start
/// tools/pytorch_attention.py bench as a child process on the same GPU and read its record. Where
/// PyTorch (or python3, or a backend) is missing, the result says which could not run and why.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lab13_library {

/// One backend's median on one shape, as tools/pytorch_attention.py counts it.
struct SdpaTiming {
  double ms = 0.0;      ///< median milliseconds of one call
  double gflops = 0.0;  ///< the lab's useful work (AttentionShape::flops()) per second, in GFLOP/s
};

/// What the child process measured.
struct SdpaResults {
  /// "flash", "efficient", "cudnn", "math" and "best", each by shape label ("b4h16s4096d128"
  /// or "..._causal", AttentionShape::label()).
  std::map<std::string, std::map<std::string, SdpaTiming>> by_backend;
  /// Why a backend or shape did not run ("cudnn/b4h16s4096d128": "not in this PyTorch"), or, under
  /// "all", why nothing ran (no python3, no PyTorch, no GPU for it, the script failed).
  std::map<std::string, std::string> skipped;
  std::string record;         ///< the JSON the script wrote (empty when none)
  std::string torch_version;  ///< PyTorch's version, when it ran

  /// The timing of `backend` on `shape`, if it ran.
  std::optional<SdpaTiming> find(const std::string& backend, const std::string& shape) const;
};

/// The backends the script times, in its order.
inline const std::vector<std::string> kSdpaBackends = {"flash", "efficient", "cudnn", "math"};

/// Runs tools/pytorch_attention.py bench (from the source tree this build was configured from, else
/// from the current folder) on `shapes` (AttentionShape labels), `repetitions` timed
/// calls per backend after it ran untimed for `settle_ms` (timed at the clocks its own power draw
/// sustains, as the caller times its own kernels), with the interpreter CUDALABS_PYTHON names
/// (default python3 on the PATH). Its record goes to `results_dir` (lab13_pytorch_<device>.json)
/// or, when that is empty, to a temporary folder removed afterwards. Never throws for a missing
/// PyTorch: says why in `skipped`.
SdpaResults time_pytorch_sdpa(const std::vector<std::string>& shapes, int repetitions,
                              double settle_ms, const std::string& results_dir);

}  // namespace lab13_library
