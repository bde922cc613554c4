/// @file labs/09_dcgan/driver_runs.h
/// @brief Lab 09's driver past its flags (main.cu): the checks of the first batch, the timed runs
/// (each checked again in its timed buffers), the per-layer timing, the tables and the end-to-end
/// run. Built into the drivers only (lab09, lab09_solution, dcgan).
#pragma once

#include "common/dcgan_check.h"
#include "common/dcgan_files.h"
#include "common/device_buffer.h"
#include "common/lab_driver.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/09_dcgan/run_record.h"

#include <array>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace lab09 {

/// What the flags and files give: weights, latents, sizes.
struct Inputs {
  std::uint64_t seed = 0;            ///< --seed (the latents' when drawn)
  cudalabs::dcgan::Weights weights;  ///< --weights: the file's or the built-in ones
  cudalabs::dcgan::Latents latents;  ///< --input's or drawn from the seed
  std::string weights_text;          ///< where the weights came from, for the header
  std::string latents_text;          ///< where the latents came from, for the header
  int num = 0;                       ///< images to generate
  int batch = 0;                     ///< images per generator run, at most num
};

/// One variant's check on the first batch.
struct Checked {
  cudalabs::dcgan::ImageCheck check;     ///< sampled images against the CPU reference
  std::array<TconvMethod, 4> methods{};  ///< the method each layer ran
};

/// The device side of a run: the generator sized for one batch, its first batch of latents, its
/// images; the timed runs use these buffers.
struct Session {
  /// Sizes the generator for `in`'s batch on `backend` and puts the first batch of latents.
  Session(const Inputs& in, const PrecisionBackend& backend);
  Generator generator;                    ///< the lab's generator, one batch large
  cudalabs::DeviceBuffer<float> latents;  ///< the first batch's latent vectors
  cudalabs::DeviceBuffer<float> images;   ///< its images
};

/// "gemm,subpixel,..." for a variant's tconv methods.
std::string methods_text(const std::array<TconvMethod, 4>& methods);

/// Every variant's first batch, NaN-poisoned first, against the CPU reference's sampled images;
/// at a reduced precision, each of its variants' whole first batch against the FP32 sub-pixel
/// variant's too.
std::map<std::string, Checked> check_variants(std::ostream& out, Session& session,
                                              const std::vector<const DcganVariant*>& selected,
                                              const Inputs& in, const std::vector<int>& picks,
                                              const std::vector<double>& reference,
                                              cudalabs::ComputePrecision precision);

/// Each passing variant on one batch in the session's buffers, checked again there after timing:
/// fresh latents (one draw for all, from driver.seed_for) in the timed latents, the images and
/// activations poisoned, one run with the timed methods, the sampled images against the CPU
/// reference.
void add_timed_runs(cudalabs::LabDriver& driver, Session& session,
                    const std::vector<const DcganVariant*>& selected,
                    const std::map<std::string, Checked>& checked, const Inputs& in,
                    const std::vector<int>& picks);

/// Each passing variant layer by layer: CUDA events around each layer, median of 5 runs.
std::vector<LayerRecord> time_layers(Session& session,
                                     const std::vector<const DcganVariant*>& selected,
                                     const std::map<std::string, Checked>& checked, int batch);

/// The summary table; returns the variant the end-to-end run takes: the fastest timed one or,
/// untimed (--verify-only, or a single repetition, which gives Google Benchmark no median), the
/// last passing one.
const DcganVariant* print_summary(const cudalabs::LabDriver& driver,
                                  const std::vector<const DcganVariant*>& selected,
                                  const std::map<std::string, Checked>& checked,
                                  const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                                  int batch);

/// The per-layer table.
void print_layers(std::ostream& out, const std::vector<LayerRecord>& layers, int batch);

/// Host latents -> host images with the pipeline: one untimed run (whose images are kept in
/// `images`), then `repetitions` timed ones, and with `timeline_path` one more traced.
EndToEndRecord run_end_to_end(std::ostream& out, Session& session, const DcganVariant& variant,
                              const std::array<TconvMethod, 4>& methods, const Inputs& in,
                              int repetitions, std::vector<float>& images,
                              const std::string& timeline_path);

}  // namespace lab09
