/// @file grader/labs/lab12_remote.h
/// @brief Lab 12's remote functions, declared once for the referee (lab12_proxy.cpp,
/// lab12_workloads.cpp) and the runner (lab12_runner.cpp): grader/remote.h. A launch's operands
/// may share a buffer (grader/referee/call_operands.h); its workspace is scratch the runner
/// allocates at the size the referee sent (grader/runner/operands.h).
#pragma once

#include "grader/remote.h"

#include <cstdint>
#include <string>

namespace grader::lab12_remote {

/// SumArgs on the sum variant of that name: `count` floats of input summed into sum.
struct Sum {
  static constexpr const char* kFunction = "lab12.sum";
  std::string variant;
  std::int64_t count;
  std::int64_t workspace_bytes, workspace_present, workspace_poisoned;
  remote::Operand input, sum;
  static constexpr auto kWire =
      remote::wire(&Sum::count, &Sum::workspace_bytes, &Sum::workspace_present,
                   &Sum::workspace_poisoned, &Sum::input, &Sum::sum);
};

/// ScanArgs on the scan variant of that name: the inclusive scan of `count` values into output.
struct Scan {
  static constexpr const char* kFunction = "lab12.scan";
  std::string variant;
  std::int64_t count;
  std::int64_t workspace_bytes, workspace_present, workspace_poisoned;
  remote::Operand input, output;
  static constexpr auto kWire =
      remote::wire(&Scan::count, &Scan::workspace_bytes, &Scan::workspace_present,
                   &Scan::workspace_poisoned, &Scan::input, &Scan::output);
};

/// HistogramArgs on the histogram variant of that name: `count` bytes of input counted into bins.
struct Histogram {
  static constexpr const char* kFunction = "lab12.histogram";
  std::string variant;
  std::int64_t count;
  remote::Operand input, bins;
  static constexpr auto kWire =
      remote::wire(&Histogram::count, &Histogram::input, &Histogram::bins);
};

/// The sum variant's workspace_bytes(count), replied as 8 bytes for the referee to cap.
struct SumWorkspace {
  static constexpr const char* kFunction = "lab12.sum_workspace";
  std::string variant;
  std::int64_t count;
  static constexpr auto kWire = remote::wire(&SumWorkspace::count);
};

/// The scan variant's workspace_bytes(count), as SumWorkspace.
struct ScanWorkspace {
  static constexpr const char* kFunction = "lab12.scan_workspace";
  std::string variant;
  std::int64_t count;
  static constexpr auto kWire = remote::wire(&ScanWorkspace::count);
};

}  // namespace grader::lab12_remote
