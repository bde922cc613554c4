// Lab 09 driver (`lab09`, `lab09_solution`, and `dcgan`, the finished program of programs/): loads
// the weights and latent vectors, checks every variant's images against the CPU reference
// generator, times each variant per layer and per batch, runs the end-to-end pipeline (host memory
// to host memory), and writes the images as a PNG grid and as raw floats. --precision runs what
// the program links besides lab 09's FP32 kernels (precision_backend.h): nothing in the labs'
// programs; lab 11's tensor-core layers in `dcgan`, whose tf32 and bf16 variants run beside lab
// 09's FP32 sub-pixel variant and are checked against both the CPU reference and that variant.
#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/dcgan_check.h"
#include "common/dcgan_files.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/earlier_labs.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_dcgan.h"
#include "common/text_table.h"
#include "common/timeline.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/pipeline.h"
#include "labs/09_dcgan/precision_backend.h"
#include "labs/09_dcgan/run_record.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using cudalabs::ComputePrecision;
using lab09::DcganVariant;
using lab09::TconvMethod;

using dcgan::ImageCheck;
using dcgan::kImageFloats;

struct Options {
  dcgan::InputFlags inputs;
  int batch = 0;  // 0: min(num, 1024)
  std::vector<std::string> variant_names;
  std::string precision_text = "fp32";
  std::string output;
  std::string raw;
  int columns = 8;
  int check_images = 4;
  int end_to_end_repetitions = 3;
  bool verify_only = false;
  bool list = false;
  std::string save_latents;
  std::string save_weights;
  cudalabs::TimingOptions timing;
  std::string results_dir;
  std::string results_tag;
  std::string timeline;
};

void register_flags(CLI::App& app, Options& o) {
  dcgan::add_input_flags(app, o.inputs);
  cudalabs::add_integer_flag(app, "--batch", o.batch, 1, 1 << 16,
                             "Images per generator run (default min(num, 1024))");
  app.add_option("--variant", o.variant_names,
                 "Variant to run (repeatable; default all; --list names them)")
      ->type_name("NAME");
  app.add_option("--precision", o.precision_text,
                 "fp32 (lab 09's kernels), or tf32 or bf16: lab 11's tensor-core layers (the "
                 "finished program `dcgan` only), run and checked beside the FP32 sub-pixel "
                 "variant")
      ->type_name("fp32|tf32|bf16");
  app.add_option("--output", o.output, "Write the images as a PNG grid here")->type_name("FILE");
  app.add_option("--raw", o.raw, "Write the images as raw float32 here (.cldi: dcgan_images.h)")
      ->type_name("FILE");
  app.add_option(
         "--timeline", o.timeline,
         "Write the timeline of one more end-to-end run here (Chrome trace JSON: Perfetto, "
         "chrome://tracing): per batch the host copies, the upload, each layer, the download")
      ->type_name("FILE");
  cudalabs::add_integer_flag(app, "--columns", o.columns, 1, 256, "Images per row of the PNG grid");
  cudalabs::add_integer_flag(
      app, "--check-images", o.check_images, 1, 1 << 16,
      "Images of the first batch checked against the CPU reference (spread over it)");
  cudalabs::add_integer_flag(app, "--end-to-end-repetitions", o.end_to_end_repetitions, 0, 100,
                             "Timed end-to-end runs of the fastest variant (median; 0 skips it)");
  cudalabs::add_integer_flag(app, "--repetitions", o.timing.repetitions, 1, 1000,
                             "Timed repetitions per variant");
  cudalabs::add_number_flag(app, "--min-time", o.timing.min_time_s, 0.0, 60.0,
                            "Minimum timed seconds per repetition");
  cudalabs::add_integer_flag(app, "--warmups", o.timing.warmups, 0, 1000,
                             "Untimed runs before each repetition");
  app.add_flag("--verify-only", o.verify_only,
               "Check every variant, time nothing; the last passing one writes the output");
  app.add_flag("--list", o.list, "List the variants and exit");
  app.add_option("--save-latents", o.save_latents,
                 "Also write the latent vectors used to this .cldz file")
      ->type_name("FILE");
  app.add_option("--save-weights", o.save_weights,
                 "Also write the weights used to this .cldw file (float32)")
      ->type_name("FILE");
  app.add_option("--results-dir", o.results_dir,
                 "Write the Google Benchmark JSON to DIR/lab09_<device>.json")
      ->type_name("DIR");
  app.add_option("--results-tag", o.results_tag,
                 "Name the JSON DIR/lab09_<TAG>_<device>.json instead")
      ->type_name("TAG");
}

std::string methods_text(const std::array<TconvMethod, 4>& methods) {
  std::string text;
  for (TconvMethod m : methods)
    text += std::string(text.empty() ? "" : ",") + lab09::method_name(m);
  return text;
}

// lab09/<variant>/b<batch>, or lab11/dcgan_<precision>/b<batch> for lab 11's layers.
std::string batch_name(const DcganVariant& v, int batch) {
  const char* lab = v.precision == ComputePrecision::kFp32 ? "lab09/" : "lab11/";
  return lab + std::string(v.name) + "/b" + std::to_string(batch);
}

// The --precision value, and whether this program can run it (one line naming the flag if not).
ComputePrecision checked_precision(const Options& o) {
  ComputePrecision precision = ComputePrecision::kFp32;
  try {
    precision = cudalabs::parse_precision(o.precision_text);
  } catch (const std::invalid_argument& error) {
    throw cudalabs::FlagError(error.what());
  }
  lab09::check_precision_flag(precision);
  return precision;
}

// What the flags and files give: weights, latents, sizes.
struct Inputs {
  std::uint64_t seed = 0;
  dcgan::Weights weights;
  dcgan::Latents latents;
  std::string weights_text, latents_text;
  int num = 0;
  int batch = 0;  // images per generator run, at most num
};

// One variant's check on the first batch.
struct Checked {
  ImageCheck check;
  std::array<TconvMethod, 4> methods{};
};

// The device side of a run: the generator sized for one batch, its first batch of latents, its
// images.
struct Session {
  Session(const Inputs& in, const lab09::PrecisionBackend& backend)
      : generator(in.weights, in.batch),
        latents(static_cast<std::size_t>(in.batch) * 100),
        images(static_cast<std::size_t>(in.batch) * kImageFloats) {
    latents.copy_from(std::span<const float>(in.latents.values).first(latents.size()));
    if (backend.make) generator.use_precision_layers(backend.make(in.weights, in.batch));
  }
  lab09::Generator generator;
  cudalabs::DeviceBuffer<float> latents;
  cudalabs::DeviceBuffer<float> images;
};

// The --variant list (default: all of lab 09's); at a reduced precision, the FP32 sub-pixel
// variant (default), to which the precision's own is added once its backend is made.
std::vector<const DcganVariant*> selected_variants(const Options& o, ComputePrecision precision) {
  std::vector<const DcganVariant*> selected;
  for (const std::string& name : o.variant_names) selected.push_back(&lab09::find_variant(name));
  if (precision != ComputePrecision::kFp32) {
    if (selected.empty()) selected.push_back(&lab09::find_variant("subpixel"));
    return selected;
  }
  if (selected.empty()) {
    for (const DcganVariant& v : lab09::variants()) selected.push_back(&v);
  }
  return selected;
}

// Loads the weights and latents the flags name and checks the sizes against host and device memory.
Inputs load_inputs(const CLI::App& app, const Options& o) {
  Inputs in;
  in.seed = dcgan::check_input_flags(app, o.inputs);
  in.weights = dcgan::load_weights(o.inputs.weights, o.inputs.weights_seed,
                                   CUDALABS_TRAINED_WEIGHTS, in.weights_text);
  in.latents = dcgan::load_latents(o.inputs.input, o.inputs.num, in.seed, in.latents_text);
  in.num = in.latents.count;
  const int batch = o.batch > 0 ? o.batch : std::min(in.num, 1024);
  if (batch > in.num && app.count("--batch") > 0) {
    throw cudalabs::FlagError("--batch: " + std::to_string(batch) + " is larger than the " +
                              std::to_string(in.num) + " images to generate");
  }
  in.batch = std::min(batch, in.num);
  cudalabs::require_host_memory(static_cast<std::size_t>(in.num) * kImageFloats * sizeof(float) * 2,
                                "--num " + std::to_string(in.num));
  if (!o.save_latents.empty())
    dcgan::write_file_bytes(o.save_latents, dcgan::serialize_latents(in.latents));
  if (!o.save_weights.empty())
    dcgan::write_file_bytes(o.save_weights, dcgan::serialize_weights(in.weights));
  return in;
}

// The GPU, the precision's backend on it (one line where this GPU cannot run it) and room for a
// batch; the precision's variant joins `selected`.
lab09::PrecisionBackend prepare_device(int batch, ComputePrecision precision,
                                       std::vector<const DcganVariant*>& selected) {
  cudalabs::require_gpu();
  lab09::PrecisionBackend backend = lab09::precision_backend(precision);
  if (backend.variant) selected.push_back(backend.variant);
  cudalabs::require_device_memory(
      lab09::Generator::device_bytes(batch) + lab09::precision_device_bytes(precision, batch) +
          3 * static_cast<std::size_t>(batch) * (kImageFloats + 100) * sizeof(float) * 2,
      "--batch " + std::to_string(batch));
  return backend;
}

std::string results_stem(const Options& o, const cudalabs::DeviceInfo& device) {
  return o.results_dir + "/lab09_" + (o.results_tag.empty() ? "" : o.results_tag + "_") +
         device.slug();
}

// The other labs' kernels this program runs: lab 07's GEMM, and those of its precisions (lab
// 11's in `dcgan`).
std::vector<cudalabs::EarlierLab> earlier_labs() {
  std::vector<cudalabs::EarlierLab> labs{{"07", cudalabs_lab07_kernels_build()}};
  for (const cudalabs::EarlierLab& lab : lab09::precision_labs()) labs.push_back(lab);
  return labs;
}

void print_header(std::ostream& out, const cudalabs::DeviceInfo& device, const Inputs& in) {
  out << cudalabs::program_name() << ": the DCGAN generator of [DCGAN-SHPC]\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs)\n"
      << "weights: " << in.weights_text << "\nlatents: " << in.latents_text
      << "\nimages: " << in.num << ", batch " << in.batch << "\n"
      << cudalabs::earlier_labs_line(earlier_labs(),
                                     std::string(cudalabs_lab09_kernels_build()) == "student")
      << "\n";
  cudalabs::print_build_report(out, nullptr);  // JIT-compiled from older PTX?
}

// Every variant's first batch, NaN-poisoned first, against the CPU reference's sampled images.
std::map<std::string, Checked> check_variants(std::ostream& out, Session& session,
                                              const std::vector<const DcganVariant*>& selected,
                                              int batch, const std::vector<int>& picks,
                                              const std::vector<double>& reference) {
  out << "check: images";
  for (int p : picks) out << " " << p;
  out << " of the first batch against the CPU reference generator (double)\n";
  std::map<std::string, Checked> checked;
  std::vector<float> host_images(static_cast<std::size_t>(batch) * kImageFloats);
  for (const DcganVariant* v : selected) {
    std::string report;
    Checked& c = checked[v->name];
    c.methods = session.generator.methods_for(*v, batch, nullptr, &report);
    if (!report.empty()) out << "  " << report << "\n";
    session.generator.poison_activations();
    cudalabs::poison_device(session.images.data(), session.images.bytes());
    session.generator.run(*v, c.methods, session.latents.data(), batch, session.images.data(),
                          nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    session.images.copy_to(host_images);
    c.check = dcgan::check_images(host_images, picks, reference, v->precision);
    out << "  " << v->name << ": " << c.check.message << "\n";
  }
  return checked;
}

// Every image of the first batch of each reduced-precision variant against the FP32 sub-pixel
// variant's, under that precision's tolerance: a check of all images, not a sample.
void check_against_fp32(std::ostream& out, Session& session,
                        const std::vector<const DcganVariant*>& selected,
                        std::map<std::string, Checked>& checked, int batch) {
  const auto fp32 = checked.find("subpixel");
  if (fp32 == checked.end() || !fp32->second.check.passed) return;
  std::vector<float> host(static_cast<std::size_t>(batch) * kImageFloats);
  const auto run_into_host = [&](const DcganVariant& v) {
    cudalabs::poison_device(session.images.data(), session.images.bytes());
    session.generator.run(v, checked.at(v.name).methods, session.latents.data(), batch,
                          session.images.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    session.images.copy_to(host);
  };
  run_into_host(lab09::find_variant("subpixel"));
  const std::vector<double> fp32_images(host.begin(), host.end());
  std::vector<int> all(static_cast<std::size_t>(batch));
  std::iota(all.begin(), all.end(), 0);
  for (const DcganVariant* v : selected) {
    if (v->precision == ComputePrecision::kFp32 || !checked.at(v->name).check.passed) continue;
    run_into_host(*v);
    const ImageCheck check = dcgan::check_images(host, all, fp32_images, v->precision);
    out << "  " << v->name << " against subpixel (FP32), all " << batch
        << " images: " << check.message << "\n";
    if (!check.passed) checked.at(v->name).check = check;
  }
}

// Each passing variant on one batch through Google Benchmark (CUDA events, medians).
std::map<std::string, cudalabs::BenchmarkMedian> time_batches(
    std::ostream& out, Session& session, const std::vector<const DcganVariant*>& selected,
    const std::map<std::string, Checked>& checked, int batch, const Options& o,
    const std::vector<std::string>& benchmark_args) {
  const std::array<double, 5> flops = lab09::layer_flops(batch);
  const double total_flops = std::accumulate(flops.begin(), flops.end(), 0.0);
  for (const DcganVariant* v : selected) {
    if (!checked.at(v->name).check.passed) continue;
    const std::array<TconvMethod, 4> m = checked.at(v->name).methods;
    cudalabs::register_timed_benchmark(
        batch_name(*v, batch),
        [&, v, m](benchmark::State& state) {
          cudalabs::time_iterations(
              state,
              [&](cudaStream_t stream, int) {
                session.generator.run(*v, m, session.latents.data(), batch, session.images.data(),
                                      stream);
              },
              total_flops, 0.0, o.timing.warmups);
          if (state.counters.count("gflops")) {
            state.counters["images_per_s"] = state.counters["gflops"] * 1e9 / total_flops * batch;
          }
        },
        o.timing);
  }
  out << "timing: " << o.timing.repetitions << " repetitions of at least " << o.timing.min_time_s
      << " s each of one batch on the GPU (CUDA events, medians)\n";
  return cudalabs::run_benchmarks(benchmark_args, out);
}

// Each passing variant layer by layer: CUDA events around each layer, median of 5 runs.
std::vector<lab09::LayerRecord> time_layers(Session& session,
                                            const std::vector<const DcganVariant*>& selected,
                                            const std::map<std::string, Checked>& checked,
                                            int batch) {
  std::map<std::string, lab09::LayerRecord> by_name;  // sorted by name, as the table shows them
  for (const DcganVariant* v : selected) {
    const Checked& c = checked.at(v->name);
    if (!c.check.passed) continue;
    std::vector<lab09::LayerTimes> runs(5);
    for (lab09::LayerTimes& t : runs) {
      session.generator.run(*v, c.methods, session.latents.data(), batch, session.images.data(),
                            nullptr, &t);
    }
    lab09::LayerRecord& record = by_name[v->name];
    record = {v->name, methods_text(c.methods), {}, lab09::layer_flops(batch)};
    for (int l = 0; l < 5; ++l) {
      std::vector<double> times;
      for (const lab09::LayerTimes& t : runs) times.push_back(t[l]);
      std::sort(times.begin(), times.end());
      record.ms[l] = static_cast<float>(times[times.size() / 2]);
    }
  }
  std::vector<lab09::LayerRecord> layers;
  for (auto& [name, record] : by_name) layers.push_back(std::move(record));
  return layers;
}

// The summary table; returns the variant the end-to-end run takes: the fastest timed one or,
// untimed
// (--verify-only, or a single repetition, which gives Google Benchmark no median), the last passing
// one.
const DcganVariant* print_summary(std::ostream& out,
                                  const std::vector<const DcganVariant*>& selected,
                                  const std::map<std::string, Checked>& checked,
                                  const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                                  int batch) {
  const std::array<double, 5> flops = lab09::layer_flops(batch);
  const double total_flops = std::accumulate(flops.begin(), flops.end(), 0.0);
  cudalabs::TextTable summary({{"variant", false},
                               {"tconv1..4", false},
                               {"ms/batch", true},
                               {"images/s", true},
                               {"GFLOP/s", true},
                               {"check", false}});
  const DcganVariant* fastest = nullptr;
  double fastest_ms = 0.0;
  for (const DcganVariant* v : selected) {
    const Checked& c = checked.at(v->name);
    const auto it = medians.find(batch_name(*v, batch));
    const double ms = it != medians.end() ? it->second.real_time_ms : std::nan("");
    summary.add_row(
        {v->name, methods_text(c.methods), cudalabs::TextTable::number(ms, 3),
         cudalabs::TextTable::number(batch / ms * 1e3, 0),
         cudalabs::TextTable::number(total_flops / ms * 1e-6, 0),
         c.check.passed ? "PASS" : (c.check.unwritten ? "not implemented yet" : "FAIL")});
    const bool timed = std::isfinite(ms);
    if (c.check.passed && (!fastest || !std::isfinite(fastest_ms) || (timed && ms < fastest_ms))) {
      fastest = v;
      fastest_ms = ms;
    }
  }
  out << "\nper batch of " << batch << " images (useful work "
      << cudalabs::TextTable::number(total_flops / batch * 1e-9, 3) << " GFLOP per image)\n";
  summary.print(out);
  return fastest;
}

void print_layers(std::ostream& out, const std::vector<lab09::LayerRecord>& layers, int batch) {
  if (layers.empty()) return;
  const char* layer_names[] = {"linear+bn+relu", "tconv1 4x4x512->8x8x256", "tconv2 ->16x16x128",
                               "tconv3 ->32x32x64", "tconv4 ->64x64x3 +tanh"};
  std::vector<cudalabs::TextTable::Column> columns{{"layer", false}};
  for (const lab09::LayerRecord& layer : layers) {
    columns.push_back({layer.variant + " ms", true});
    columns.push_back({"GFLOP/s", true});
  }
  cudalabs::TextTable table(columns);
  for (int l = 0; l < 5; ++l) {
    std::vector<std::string> row{layer_names[l]};
    for (const lab09::LayerRecord& layer : layers) {
      row.push_back(cudalabs::TextTable::number(layer.ms[l], 3));
      row.push_back(cudalabs::TextTable::number(layer.flops[l] / layer.ms[l] * 1e-6, 0));
    }
    table.add_row(row);
  }
  out << "\nper layer (CUDA events around each layer, median of 5 runs, batch " << batch << ")\n";
  table.print(out);
}

// Host latents -> host images with the pipeline: one untimed run (whose images are written out),
// then the timed ones.
lab09::EndToEndRecord run_end_to_end(std::ostream& out, Session& session,
                                     const DcganVariant& variant,
                                     const std::array<TconvMethod, 4>& methods, const Inputs& in,
                                     int repetitions, std::vector<float>& images,
                                     const std::string& timeline_path) {
  lab09::Pipeline pipeline(session.generator);
  std::vector<double> seconds;
  pipeline.generate(variant, methods, in.latents.values, in.num, images);
  for (int r = 0; r < repetitions; ++r) {
    seconds.push_back(pipeline.generate(variant, methods, in.latents.values, in.num, images));
  }
  if (!timeline_path.empty()) {
    // One more run with the timing events on (they cost the timed runs nothing).
    cudalabs::Timeline timeline;
    const cudalabs::DeviceInfo device = cudalabs::current_device_info();
    pipeline.set_timeline(&timeline, 0, "GPU 0: " + device.name);
    pipeline.generate(variant, methods, in.latents.values, in.num, images);
    pipeline.set_timeline(nullptr, 0, "");
    timeline.write(timeline_path);
    out << "timeline: " << timeline.spans().size() << " spans of one end-to-end run ("
        << variant.name << ") in " << timeline_path << "\n";
  }
  lab09::EndToEndRecord record{variant.name, in.num, in.batch, 0.0,
                               static_cast<int>(seconds.size())};
  if (seconds.empty()) return record;
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  out << "\nend to end (" << variant.name << ", batches of " << in.batch
      << ", pinned staging, copies overlapped): " << in.num << " images in "
      << cudalabs::TextTable::number(median * 1e3, 2)
      << " ms = " << cudalabs::TextTable::number(in.num / median, 0) << " images/s (median of "
      << seconds.size() << ")\n";
  record.ms = median * 1e3;
  return record;
}

int run(int argc, char** argv) {
  // ---- Parse ----
  Options o;
  CLI::App app{
      "Lab 09: the DCGAN generator of [DCGAN-SHPC] on one GPU. Checks every variant "
      "against the CPU reference generator, times it per layer and end to end, and writes the "
      "images."};
  register_flags(app, o);
  std::vector<std::string> benchmark_args = cudalabs::parse_flags_with_benchmark(app, argc, argv);
  if (o.list) {
    for (const DcganVariant& v : lab09::variants())
      std::cout << v.name << "\t" << v.summary << "\n";
    return cudalabs::kExitOk;
  }
  if (!o.timeline.empty() && !std::ofstream(o.timeline)) {  // before any GPU work
    throw cudalabs::FlagError("--timeline: '" + o.timeline + "' cannot be written");
  }
  const ComputePrecision precision = checked_precision(o);
  std::vector<const DcganVariant*> selected = selected_variants(o, precision);
  const Inputs in = load_inputs(app, o);
  const bool machine_readable = cudalabs::benchmark_stdout_is_machine_readable(benchmark_args);
  std::ostream& out = machine_readable ? std::cerr : std::cout;
  const lab09::PrecisionBackend backend = prepare_device(in.batch, precision, selected);
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  if (!o.results_dir.empty()) {
    std::filesystem::create_directories(o.results_dir);
    benchmark_args.push_back("--benchmark_out=" + results_stem(o, device) + ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  print_header(out, device, in);
  Session session(in, backend);

  // ---- Check: the first batch, sampled images against the CPU reference ----
  const std::vector<int> picks = dcgan::spread_picks(in.batch, o.check_images);
  const std::vector<double> reference =
      dcgan::reference_images(in.weights, in.latents.values, picks);
  std::map<std::string, Checked> checked =
      check_variants(out, session, selected, in.batch, picks, reference);
  if (precision != ComputePrecision::kFp32)
    check_against_fp32(out, session, selected, checked, in.batch);
  bool all_passed = std::all_of(checked.begin(), checked.end(),
                                [](const auto& c) { return c.second.check.passed; });

  // ---- Time: each passing variant on one batch, then per layer ----
  std::map<std::string, cudalabs::BenchmarkMedian> medians;
  std::vector<lab09::LayerRecord> layers;
  if (!o.verify_only) {
    cudalabs::add_benchmark_context(device, argc, argv, in.seed);
    medians = time_batches(out, session, selected, checked, in.batch, o, benchmark_args);
    layers = time_layers(session, selected, checked, in.batch);
  }

  // ---- Report ----
  const DcganVariant* fastest = print_summary(out, selected, checked, medians, in.batch);
  print_layers(out, layers, in.batch);
  if (!fastest) {
    out << "\nno variant passed: nothing generated end to end\n";
    return cudalabs::kExitFailed;
  }

  // ---- End to end: host latents -> host images, the fastest variant ----
  std::vector<float> images(static_cast<std::size_t>(in.num) * kImageFloats);
  const lab09::EndToEndRecord end_to_end =
      run_end_to_end(out, session, *fastest, checked.at(fastest->name).methods, in,
                     o.verify_only ? 0 : o.end_to_end_repetitions, images, o.timeline);

  // ---- Write: the record beside the benchmark JSON, the images ----
  if (!o.results_dir.empty() && !o.verify_only) {
    lab09::write_run_record(results_stem(o, device) + "_extra.json", end_to_end, layers, in.batch);
  }
  // The end-to-end images must be the checked ones: compare the sampled images once more.
  const ImageCheck final_check = dcgan::check_images(images, picks, reference, fastest->precision);
  out << "end-to-end images: " << final_check.message << "\n";
  all_passed = all_passed && final_check.passed;
  dcgan::write_requested_images(out, o.output, o.raw, images, in.num, o.columns);
  return all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
