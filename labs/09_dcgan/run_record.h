/// @file labs/09_dcgan/run_record.h
/// @brief What lab 09's driver records beside its Google Benchmark JSON: the end-to-end run and the
/// per-layer medians, which scripts/lab09-bench merges into docs/data/results/lab09_DEVICE.json.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace lab09 {

/// The end-to-end run: num images from host memory to host memory, median wall-clock time.
struct EndToEndRecord {
  std::string variant;  ///< the variant that ran (the fastest timed one)
  int num = 0;          ///< images generated
  int batch = 0;        ///< images per generator run
  double ms = 0.0;      ///< median milliseconds (0 when no repetition was timed)
  int repetitions = 0;  ///< timed runs the median is taken over
};

/// One variant's per-layer medians for one batch.
struct LayerRecord {
  std::string variant;            ///< variant name
  std::string methods;            ///< its tconv methods, "gemm,subpixel,..."
  std::array<float, 5> ms{};      ///< median ms of each layer (linear, tconv1..4)
  std::array<double, 5> flops{};  ///< useful floating-point operations of each layer
};

/// Writes {"end_to_end": {...}, "layers": {variant: {methods, batch, ms, gflops}}} to `path`.
void write_run_record(const std::string& path, const EndToEndRecord& end_to_end,
                      const std::vector<LayerRecord>& layers, int batch);

}  // namespace lab09
