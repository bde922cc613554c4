// Lab 09 driver (`lab09`, `lab09_solution`, and `dcgan`, the finished program): loads the weights and
// latent vectors, checks every variant's images against the CPU reference generator, times each
// variant per layer and per batch, runs the end-to-end pipeline (host memory to host memory), and
// writes the images as a PNG grid and as raw floats.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/dcgan_check.h"
#include "common/dcgan_files.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/reference_dcgan.h"
#include "common/text_table.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"
#include "labs/09_dcgan/pipeline.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using lab09::DcganVariant;
using lab09::TconvMethod;

using dcgan::ImageCheck;
using dcgan::kImageFloats;

struct Options {
  dcgan::InputFlags inputs;
  int batch = 0;  // 0: min(num, 1024)
  std::vector<std::string> variant_names;
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
};

void register_flags(CLI::App& app, Options& o) {
  dcgan::add_input_flags(app, o.inputs);
  cudalabs::add_integer_flag(app, "--batch", o.batch, 1, 1 << 16, "Images per generator run (default min(num, 1024))");
  app.add_option("--variant", o.variant_names, "Variant to run (repeatable; default all; --list names them)");
  app.add_option("--output", o.output, "Write the images as a PNG grid here");
  app.add_option("--raw", o.raw, "Write the images as raw float32 here (.cldi: dcgan_images.h)");
  cudalabs::add_integer_flag(app, "--columns", o.columns, 1, 256, "Images per row of the PNG grid");
  cudalabs::add_integer_flag(app, "--check-images", o.check_images, 1, 1 << 16,
                             "Images of the first batch checked against the CPU reference (spread over it)");
  cudalabs::add_integer_flag(app, "--end-to-end-repetitions", o.end_to_end_repetitions, 0, 100,
                             "Timed end-to-end runs of the fastest variant (median; 0 skips it)");
  cudalabs::add_integer_flag(app, "--repetitions", o.timing.repetitions, 1, 1000, "Timed repetitions per variant");
  cudalabs::add_number_flag(app, "--min-time", o.timing.min_time_s, 0.0, 60.0, "Minimum timed seconds per repetition");
  cudalabs::add_integer_flag(app, "--warmups", o.timing.warmups, 0, 1000, "Untimed runs before each repetition");
  app.add_flag("--verify-only", o.verify_only, "Check every variant, time nothing; the last passing one writes the output");
  app.add_flag("--list", o.list, "List the variants and exit");
  app.add_option("--save-latents", o.save_latents, "Also write the latent vectors used to this .cldz file");
  app.add_option("--save-weights", o.save_weights, "Also write the weights used to this .cldw file (float32)");
  app.add_option("--results-dir", o.results_dir, "Write the Google Benchmark JSON to DIR/lab09_<device>.json");
  app.add_option("--results-tag", o.results_tag, "Name the JSON DIR/lab09_<TAG>_<device>.json instead");
  app.footer("Google Benchmark flags (--benchmark_format=json, --benchmark_out=FILE, ...) are passed through.");
}

std::string methods_text(const std::array<TconvMethod, 4>& methods) {
  std::string text;
  for (TconvMethod m : methods) text += std::string(text.empty() ? "" : ",") + lab09::method_name(m);
  return text;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"dcgan (lab 09): the DCGAN generator of [DCGAN-SHPC] on one GPU. Checks every variant against the CPU "
               "reference generator, times it per layer and end to end, and writes the images."};
  register_flags(app, o);
  std::vector<std::string> benchmark_args = cudalabs::parse_flags(app, argc, argv);
  cudalabs::reject_unknown_flags(benchmark_args);
  if (o.list) {
    for (const DcganVariant& v : lab09::variants()) std::cout << v.name << "\t" << v.summary << "\n";
    return cudalabs::kExitOk;
  }
  std::vector<const DcganVariant*> selected;
  for (const std::string& name : o.variant_names) selected.push_back(&lab09::find_variant(name));
  if (selected.empty()) {
    for (const DcganVariant& v : lab09::variants()) selected.push_back(&v);
  }
  const std::uint64_t seed = dcgan::check_input_flags(app, o.inputs);
  std::string weights_text, latents_text;
  const dcgan::Weights weights = dcgan::load_weights(o.inputs.weights, o.inputs.weights_seed, CUDALABS_TRAINED_WEIGHTS, weights_text);
  const dcgan::Latents latents = dcgan::load_latents(o.inputs.input, o.inputs.num, seed, latents_text);
  const int num = latents.count;
  const int batch = o.batch > 0 ? o.batch : std::min(num, 1024);
  if (batch > num && app.count("--batch") > 0) {
    throw cudalabs::FlagError("--batch: " + std::to_string(batch) + " is larger than the " + std::to_string(num) +
                              " images to generate");
  }
  cudalabs::require_host_memory(static_cast<std::size_t>(num) * kImageFloats * sizeof(float) * 2,
                      "--num " + std::to_string(num));
  if (!o.save_latents.empty()) dcgan::write_file_bytes(o.save_latents, dcgan::serialize_latents(latents));
  if (!o.save_weights.empty()) dcgan::write_file_bytes(o.save_weights, dcgan::serialize_weights(weights));

  const bool machine_readable = cudalabs::benchmark_stdout_is_machine_readable(benchmark_args);
  std::ostream& out = machine_readable ? std::cerr : std::cout;
  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  const int run_batch = std::min(batch, num);
  cudalabs::require_device_memory(lab09::Generator::device_bytes(run_batch) +
                                      3 * static_cast<std::size_t>(run_batch) * (kImageFloats + 100) * sizeof(float) * 2,
                                  "--batch " + std::to_string(run_batch));
  if (!o.results_dir.empty()) {
    std::filesystem::create_directories(o.results_dir);
    const std::string tag = o.results_tag.empty() ? "" : o.results_tag + "_";
    benchmark_args.push_back("--benchmark_out=" + o.results_dir + "/lab09_" + tag + device.slug() + ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  out << "dcgan: the DCGAN generator of [DCGAN-SHPC]\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", " << device.sm_count << " SMs)\n"
      << "weights: " << weights_text << "\nlatents: " << latents_text << "\nimages: " << num << ", batch " << run_batch
      << "\n";

  lab09::Generator generator(weights, run_batch);
  cudalabs::DeviceBuffer<float> device_latents(latents.values.size() > static_cast<std::size_t>(run_batch) * 100
                                                   ? static_cast<std::size_t>(run_batch) * 100
                                                   : latents.values.size());
  device_latents.copy_from(std::span<const float>(latents.values).first(static_cast<std::size_t>(run_batch) * 100));
  cudalabs::DeviceBuffer<float> device_images(static_cast<std::size_t>(run_batch) * kImageFloats);

  // ---- Check: the first batch, sampled images against the CPU reference ----
  const std::vector<int> picks = dcgan::spread_picks(run_batch, o.check_images);
  const std::vector<double> reference = dcgan::reference_images(weights, latents.values, picks);
  out << "check: images";
  for (int p : picks) out << " " << p;
  out << " of the first batch against the CPU reference generator (double)\n";
  std::map<std::string, ImageCheck> checks;
  std::map<std::string, std::array<TconvMethod, 4>> methods;
  std::vector<float> host_images(static_cast<std::size_t>(run_batch) * kImageFloats);
  bool all_passed = true;
  for (const DcganVariant* v : selected) {
    std::string report;
    methods[v->name] = generator.methods_for(*v, run_batch, nullptr, &report);
    if (!report.empty()) out << "  " << report << "\n";
    generator.poison_activations();
    cudalabs::poison_device(device_images.data(), device_images.bytes());
    generator.run(*v, methods[v->name], device_latents.data(), run_batch, device_images.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    device_images.copy_to(host_images);
    checks[v->name] = dcgan::check_images(host_images, picks, reference);
    out << "  " << v->name << ": " << checks[v->name].message << "\n";
    all_passed = all_passed && checks[v->name].passed;
  }

  // ---- Timing: each passing variant on one batch, then per layer ----
  const std::array<double, 5> flops = lab09::layer_flops(run_batch);
  double total_flops = 0.0;
  for (double f : flops) total_flops += f;
  std::map<std::string, cudalabs::BenchmarkMedian> medians;
  std::map<std::string, lab09::LayerTimes> layer_times;
  if (!o.verify_only) {
    cudalabs::add_benchmark_context(device, argc, argv, seed);
    for (const DcganVariant* v : selected) {
      if (!checks[v->name].passed) continue;
      const std::array<TconvMethod, 4> m = methods[v->name];
      cudalabs::register_timed_benchmark(
          "lab09/" + std::string(v->name) + "/b" + std::to_string(run_batch),
          [&, v, m](benchmark::State& state) {
            cudalabs::time_iterations(
                state,
                [&](cudaStream_t stream, int) {
                  generator.run(*v, m, device_latents.data(), run_batch, device_images.data(), stream);
                },
                total_flops, 0.0, o.timing.warmups);
            if (state.counters.count("gflops")) {
              state.counters["images_per_s"] = state.counters["gflops"] * 1e9 / total_flops * run_batch;
            }
          },
          o.timing);
    }
    out << "timing: " << o.timing.repetitions << " repetitions of at least " << o.timing.min_time_s
        << " s each of one batch on the GPU (CUDA events, medians)\n";
    medians = cudalabs::run_benchmarks(benchmark_args, out);
    for (const DcganVariant* v : selected) {
      if (!checks[v->name].passed) continue;
      std::vector<lab09::LayerTimes> runs(5);
      for (lab09::LayerTimes& t : runs) generator.run(*v, methods[v->name], device_latents.data(), run_batch,
                                                      device_images.data(), nullptr, &t);
      lab09::LayerTimes median{};
      for (int l = 0; l < 5; ++l) {
        std::vector<float> times;
        for (const lab09::LayerTimes& t : runs) times.push_back(t[l]);
        std::sort(times.begin(), times.end());
        median[l] = times[times.size() / 2];
      }
      layer_times[v->name] = median;
    }
  }

  // ---- Tables ----
  cudalabs::TextTable summary({{"variant", false}, {"tconv1..4", false}, {"ms/batch", true}, {"images/s", true},
                               {"GFLOP/s", true}, {"check", false}});
  const DcganVariant* fastest = nullptr;
  double fastest_ms = 0.0;
  for (const DcganVariant* v : selected) {
    const std::string key = "lab09/" + std::string(v->name) + "/b" + std::to_string(run_batch);
    const auto it = medians.find(key);
    const double ms = it != medians.end() ? it->second.real_time_ms : std::nan("");
    summary.add_row({v->name, methods_text(methods[v->name]), cudalabs::TextTable::number(ms, 3),
                     cudalabs::TextTable::number(run_batch / ms * 1e3, 0),
                     cudalabs::TextTable::number(total_flops / ms * 1e-6, 0),
                     checks[v->name].passed ? "PASS" : (checks[v->name].unwritten ? "not implemented yet" : "FAIL")});
    // The end-to-end run takes the fastest timed variant; untimed (--verify-only, or a single
    // repetition, which gives Google Benchmark no median), the last passing one.
    const bool timed = std::isfinite(ms);
    if (checks[v->name].passed && (!fastest || !std::isfinite(fastest_ms) || (timed && ms < fastest_ms))) {
      fastest = v;
      fastest_ms = ms;
    }
  }
  out << "\nper batch of " << run_batch << " images (useful work " << cudalabs::TextTable::number(total_flops / run_batch * 1e-9, 3)
      << " GFLOP per image)\n";
  summary.print(out);
  if (!layer_times.empty()) {
    const char* layer_names[] = {"linear+bn+relu", "tconv1 4x4x512->8x8x256", "tconv2 ->16x16x128",
                                 "tconv3 ->32x32x64", "tconv4 ->64x64x3 +tanh"};
    std::vector<cudalabs::TextTable::Column> columns{{"layer", false}};
    for (const auto& [name, times] : layer_times) {
      columns.push_back({name + " ms", true});
      columns.push_back({"GFLOP/s", true});
    }
    cudalabs::TextTable layers(columns);
    for (int l = 0; l < 5; ++l) {
      std::vector<std::string> row{layer_names[l]};
      for (const auto& [name, times] : layer_times) {
        row.push_back(cudalabs::TextTable::number(times[l], 3));
        row.push_back(cudalabs::TextTable::number(flops[l] / times[l] * 1e-6, 0));
      }
      layers.add_row(row);
    }
    out << "\nper layer (CUDA events around each layer, median of 5 runs, batch " << run_batch << ")\n";
    layers.print(out);
  }

  // ---- End to end: host latents -> host images, the fastest variant ----
  if (!fastest) {
    out << "\nno variant passed: nothing generated end to end\n";
    return cudalabs::kExitFailed;
  }
  std::vector<float> images(static_cast<std::size_t>(num) * kImageFloats);
  lab09::Pipeline pipeline(generator);
  const std::array<TconvMethod, 4> m = methods[fastest->name];
  std::vector<double> seconds;
  double end_to_end_ms = 0.0;
  pipeline.generate(*fastest, m, latents.values, num, images);  // warm-up, and the images written below
  for (int r = 0; r < (o.verify_only ? 0 : o.end_to_end_repetitions); ++r) {
    seconds.push_back(pipeline.generate(*fastest, m, latents.values, num, images));
  }
  if (!seconds.empty()) {
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    out << "\nend to end (" << fastest->name << ", batches of " << run_batch
        << ", pinned staging, copies overlapped): " << num << " images in " << cudalabs::TextTable::number(median * 1e3, 2)
        << " ms = " << cudalabs::TextTable::number(num / median, 0) << " images/s (median of " << seconds.size()
        << ")\n";
    end_to_end_ms = median * 1e3;
  }
  if (!o.results_dir.empty() && !o.verify_only) {
    // Beside the benchmark JSON (Google Benchmark has written its own file): the end-to-end run and
    // the per-layer medians, which scripts/lab09-bench merges into docs/data/results/lab09_<device>.json.
    std::ofstream file(o.results_dir + "/lab09_" + (o.results_tag.empty() ? "" : o.results_tag + "_") + device.slug() +
                       "_extra.json");
    file << "{\n \"end_to_end\": {\"name\": \"lab09/end_to_end/" << fastest->name << "/n" << num
         << "\", \"variant\": \"" << fastest->name << "\", \"num\": " << num << ", \"batch\": " << run_batch
         << ", \"real_time\": " << end_to_end_ms << ", \"time_unit\": \"ms\", \"images_per_s\": "
         << (end_to_end_ms > 0 ? num / end_to_end_ms * 1e3 : 0.0) << ", \"repetitions\": " << seconds.size()
         << "},\n \"layers\": {";
    bool first = true;
    for (const auto& [name, times] : layer_times) {
      file << (first ? "" : ",") << "\n  \"" << name << "\": {\"methods\": \"" << methods_text(methods[name])
           << "\", \"batch\": " << run_batch << ", \"ms\": [";
      for (int l = 0; l < 5; ++l) file << (l ? ", " : "") << times[l];
      file << "], \"gflops\": [";
      for (int l = 0; l < 5; ++l) file << (l ? ", " : "") << flops[l] / times[l] * 1e-6;
      file << "]}";
      first = false;
    }
    file << "\n }\n}\n";
  }
  // The end-to-end images must be the checked ones: compare the sampled images once more.
  const ImageCheck final_check = dcgan::check_images(images, picks, reference);
  out << "end-to-end images: " << final_check.message << "\n";
  all_passed = all_passed && final_check.passed;
  dcgan::write_requested_images(out, o.output, o.raw, images, num, o.columns);
  return all_passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main("dcgan", [&] { return run(argc, argv); });
}
