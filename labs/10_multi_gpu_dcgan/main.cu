// Lab 10 driver (`lab10`, `lab10_solution`): the generator on several GPUs of this machine, one host
// thread per GPU. Checks the split (gpu_share), checks sampled images against the CPU reference and
// the whole multi-GPU output against one GPU's, times seed 000's Table 4 (num_to_gen x GPUs, end to
// end) and writes the images.
#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/dcgan_check.h"
#include "common/dcgan_files.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/device_info.h"
#include "common/random_fill.h"
#include "common/reference_dcgan.h"
#include "common/text_table.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/scaling.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;
using dcgan::kLatent;

struct Options {
  std::string weights = "default";
  int weights_seed = 1;
  std::string input;
  int num = 64;
  std::string seed_text;
  int batch = 0;  // 0: min(1024, the largest share)
  int gpus = 0;   // 0: every GPU present
  std::string devices;
  std::string output;
  std::string raw;
  int columns = 8;
  int check_images = 4;
  bool verify_only = false;
  std::string scaling = "10,100,1000,5248";
  std::string scaling_gpus;
  int repetitions = 5;
  std::string results_dir;
  std::string results_tag;
  std::string benchmark_out;  // the grader's --benchmark_out: the table as JSON there too
  std::string benchmark_out_format = "json";
};

void register_flags(CLI::App& app, Options& o) {
  app.add_option("--weights", o.weights,
                 "Weights: a .cldw file, 'trained', 'builtin' or 'default' (trained if present, else builtin)");
  cudalabs::add_integer_flag(app, "--weights-seed", o.weights_seed, 0, 1 << 30, "Seed of the builtin weights");
  app.add_option("--input", o.input, "Latent vectors: a .cldz file (instead of --num random ones)");
  cudalabs::add_integer_flag(app, "--num", o.num, 1, 1 << 20, "Images to generate from random latent vectors");
  app.add_option("--seed", o.seed_text, "Seed of the random latent vectors (default: CUDALABS_SEED or fresh)");
  cudalabs::add_integer_flag(app, "--batch", o.batch, 1, 1 << 16,
                             "Images per generator run on each GPU (default min(1024, largest share))");
  cudalabs::add_integer_flag(app, "--gpus", o.gpus, 1, 1024, "Use GPUs 0 .. N-1 (default: all present)");
  app.add_option("--devices", o.devices,
                 "Comma-separated CUDA devices, one worker each, instead of --gpus (a device may repeat: "
                 "'0,0' runs two workers on GPU 0)");
  app.add_option("--output", o.output, "Write the images as a PNG grid here");
  app.add_option("--raw", o.raw, "Write the images as raw float32 here (.cldi)");
  cudalabs::add_integer_flag(app, "--columns", o.columns, 1, 256, "Images per row of the PNG grid");
  cudalabs::add_integer_flag(app, "--check-images", o.check_images, 1, 1 << 16,
                             "Images checked against the CPU reference (spread over the output)");
  app.add_flag("--verify-only", o.verify_only, "Check the split and the images, time nothing");
  app.add_option("--scaling", o.scaling, "num_to_gen values of the scaling table (comma-separated)");
  app.add_option("--scaling-gpus", o.scaling_gpus,
                 "GPU counts of the scaling table (default 1, 2, 4, ... up to the workers, and all of them)");
  cudalabs::add_integer_flag(app, "--repetitions", o.repetitions, 1, 1000, "Timed runs per table cell (median)");
  app.add_option("--results-dir", o.results_dir, "Write the table as JSON to DIR/lab10_threads_<device>.json");
  app.add_option("--results-tag", o.results_tag, "Name it DIR/lab10_threads_<TAG>_<device>.json instead");
  app.add_option("--benchmark_out", o.benchmark_out, "Also write the table's JSON to this file (as the grader asks)");
  app.add_option("--benchmark_out_format", o.benchmark_out_format, "Format of --benchmark_out: json");
}

// The worker devices: `listed` (--devices) when given, else --gpus (or all) in order.
std::vector<int> choose_devices(const Options& o, const std::vector<int>& listed, int present) {
  for (int d : listed) {
    if (d >= present) {
      throw cudalabs::FlagError("--devices: GPU " + std::to_string(d) + " does not exist (" + std::to_string(present) +
                                " present)");
    }
  }
  if (!listed.empty()) return listed;
  if (o.gpus > present) {
    throw cudalabs::FlagError("--gpus: " + std::to_string(o.gpus) + " GPUs asked for, " + std::to_string(present) +
                              " present");
  }
  std::vector<int> devices(o.gpus > 0 ? o.gpus : present);
  for (std::size_t i = 0; i < devices.size(); ++i) devices[i] = static_cast<int>(i);
  return devices;
}

// The harness's check of gpu_share for `parts` GPUs: in order, tiling [0, num), balanced.
bool check_shares(int num, int parts, std::ostream& out) {
  std::ostringstream problem;
  int next = 0, smallest = num, largest = 0;
  bool all_empty = true;
  for (int p = 0; p < parts && problem.str().empty(); ++p) {
    const lab10::Share share = lab10::gpu_share(num, parts, p);
    all_empty = all_empty && share.count == 0;
    if (share.first != next || share.count < 0) {
      problem << "part " << p << " is [" << share.first << ", " << share.first + share.count << "), expected it to start at "
              << next;
    }
    next = share.first + share.count;
    smallest = std::min(smallest, share.count);
    largest = std::max(largest, share.count);
  }
  if (all_empty && num > 0) {
    out << "gpu_share: every share is empty: not implemented yet\n";
    return false;
  }
  if (problem.str().empty() && next != num) problem << "the parts end at " << next << ", not at num = " << num;
  if (problem.str().empty() && largest - smallest > 1) problem << "shares of " << smallest << " and " << largest << " images";
  if (!problem.str().empty()) {
    out << "gpu_share(" << num << ", " << parts << "): FAIL: " << problem.str() << "\n";
    return false;
  }
  return true;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"lab10: the DCGAN generator on several GPUs of this machine, one host thread per GPU. Checks the "
               "images against the CPU reference and one GPU's output, and times num_to_gen x GPUs end to end."};
  register_flags(app, o);
  cudalabs::reject_unknown_flags(cudalabs::parse_flags(app, argc, argv));
  if (!o.input.empty() && app.count("--num") > 0) {
    throw cudalabs::FlagError("--num: give either --num or --input '" + o.input + "', not both");
  }
  if (o.benchmark_out_format != "json") {
    throw cudalabs::FlagError("--benchmark_out_format: '" + o.benchmark_out_format + "' (only json is written)");
  }
  if (!o.devices.empty() && app.count("--gpus") > 0) {
    throw cudalabs::FlagError("--gpus: give either --gpus or --devices '" + o.devices + "', not both");
  }
  const std::vector<int> listed_devices =
      o.devices.empty() ? std::vector<int>{} : lab10::parse_int_list("--devices", o.devices, 0, 1023);
  const std::vector<int> scaling_nums =
      o.verify_only ? std::vector<int>{} : lab10::parse_int_list("--scaling", o.scaling, 1, 1 << 20);
  const std::uint64_t seed =
      o.seed_text.empty() ? cudalabs::run_seed()
                          : static_cast<std::uint64_t>(cudalabs::parse_integer_flag("--seed", o.seed_text, 0, 1LL << 62));
  std::string weights_text, latents_text;
  const dcgan::Weights weights = dcgan::load_weights(o.weights, o.weights_seed, CUDALABS_TRAINED_WEIGHTS, weights_text);
  const dcgan::Latents latents = dcgan::load_latents(o.input, o.num, seed, latents_text);
  const int num = latents.count;
  int largest_num = num;
  for (int n : scaling_nums) largest_num = std::max(largest_num, n);
  // The output, one GPU's output to compare with, and the largest scaling run's images.
  cudalabs::require_host_memory(static_cast<std::size_t>(2 * num + largest_num) * kImageFloats * sizeof(float),
                                "--num " + std::to_string(num) + " with --scaling up to " + std::to_string(largest_num));

  cudalabs::require_gpu();
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  const std::vector<int> devices = choose_devices(o, listed_devices, present);
  const int workers_count = static_cast<int>(devices.size());
  std::vector<int> gpu_counts;
  if (!o.scaling_gpus.empty()) {
    gpu_counts = lab10::parse_int_list("--scaling-gpus", o.scaling_gpus, 1, workers_count);
  } else {
    for (int g = 1; g < workers_count; g *= 2) gpu_counts.push_back(g);
    gpu_counts.push_back(workers_count);
  }
  const int batch = o.batch > 0 ? o.batch : std::min(1024, largest_num);
  std::cout << "lab10: the DCGAN generator on " << workers_count << " GPU worker(s), one host thread each\n";
  for (int d : devices) std::cout << "  worker on GPU " << d << ": " << cudalabs::device_name(d) << "\n";
  std::cout << "weights: " << weights_text << "\nlatents: " << latents_text << "\nimages: " << num
            << ", batches of up to " << batch << " per GPU\n";

  // ---- The split ----
  bool passed = true;
  const std::pair<int, int> split_cases[] = {{num, workers_count}, {10, 3}, {5, 7}, {65536, 4}};
  for (const auto& [images_count, parts] : split_cases) passed = check_shares(images_count, parts, std::cout) && passed;
  if (!passed) return cudalabs::kExitFailed;
  std::cout << "gpu_share: PASS (in order, tiling every image, balanced)\n";

  // ---- The workers: one GPU each, each with its own weights, streams and pinned buffers ----
  const int copy_threads = std::max(1, omp_get_max_threads() / workers_count);
  std::vector<std::unique_ptr<lab10::GpuWorker>> owned;
  std::vector<lab10::GpuWorker*> workers;
  for (int d : devices) {
    owned.push_back(std::make_unique<lab10::GpuWorker>(d, weights, batch, copy_threads));
    workers.push_back(owned.back().get());
  }

  // ---- Check: sampled images against the CPU reference, the whole output against one GPU's ----
  std::vector<float> images(static_cast<std::size_t>(num) * kImageFloats, std::nanf(""));
  const double seconds = lab10::generate_on_gpus(workers, latents.values, num, images);
  const std::vector<int> picks = dcgan::spread_picks(num, o.check_images);
  std::vector<float> picked_latents;
  for (int p : picks) {
    picked_latents.insert(picked_latents.end(), latents.values.begin() + static_cast<std::ptrdiff_t>(p) * kLatent,
                          latents.values.begin() + static_cast<std::ptrdiff_t>(p + 1) * kLatent);
  }
  const dcgan::ImageCheck check = dcgan::check_images(
      images, picks, dcgan::reference_generator(weights, picked_latents, static_cast<int>(picks.size())));
  std::cout << "check: images";
  for (int p : picks) std::cout << " " << p;
  std::cout << " against the CPU reference generator (double): " << check.message << "\n";
  passed = check.passed;
  if (check.unwritten) return cudalabs::kExitFailed;
  if (workers_count > 1) {
    std::vector<float> single(images.size(), std::nanf(""));
    workers[0]->generate(latents.values, num, single);
    std::size_t differ = 0, first = 0;
    for (std::size_t e = 0; e < images.size(); ++e) {
      // Bit for bit: the same kernels on the same z give the same floats on every GPU of one kind.
      if (std::memcmp(&images[e], &single[e], sizeof(float)) != 0 && differ++ == 0) first = e;
    }
    std::cout << "identical to one GPU's output (" << images.size() << " values): ";
    if (differ == 0) {
      std::cout << "PASS\n";
    } else {
      std::cout << "FAIL: " << differ << " values differ, the first in image " << first / kImageFloats << "\n";
      passed = false;
    }
  }
  std::cout << "first run: " << num << " images in " << cudalabs::TextTable::number(seconds * 1e3, 2)
            << " ms (untimed warm-up)\n";

  // ---- Seed 000's Table 4: num_to_gen x GPUs, end to end, host memory to host memory ----
  if (!scaling_nums.empty() && passed) {
    dcgan::Latents table_latents = dcgan::load_latents("", largest_num, cudalabs::derive_seed(seed, "scaling"), latents_text);
    std::vector<float> table_images(static_cast<std::size_t>(largest_num) * kImageFloats);
    std::vector<lab10::ScalingPoint> points;
    for (int n : scaling_nums) {
      for (int g : gpu_counts) {
        std::span<lab10::GpuWorker* const> subset(workers.data(), static_cast<std::size_t>(g));
        lab10::generate_on_gpus(subset, table_latents.values, n, table_images);  // warm-up
        std::vector<double> runs;
        for (int r = 0; r < o.repetitions; ++r) runs.push_back(lab10::generate_on_gpus(subset, table_latents.values, n, table_images));
        points.push_back({n, g, lab10::median_seconds(runs), o.repetitions});
      }
    }
    std::cout << "\nend to end, latent vectors in host memory to images in host memory (median of " << o.repetitions
              << " runs; efficiency = images/s / (GPUs x one GPU's images/s))\n"
              << lab10::scaling_table(points);
    if (!o.benchmark_out.empty()) {
      lab10::write_scaling_json(o.benchmark_out, "threads",
                                lab10::record_context(argc, argv, devices, cudalabs::built_from_commit()), points);
    }
    if (!o.results_dir.empty()) {
      std::filesystem::create_directories(o.results_dir);
      const std::string path = o.results_dir + "/lab10_threads_" + (o.results_tag.empty() ? "" : o.results_tag + "_") +
                               cudalabs::device_slug(cudalabs::device_name(devices[0])) + ".json";
      std::map<std::string, std::string> context = lab10::record_context(argc, argv, devices, cudalabs::built_from_commit());
      context["seed"] = std::to_string(seed);
      context["weights"] = weights_text;
      lab10::write_scaling_json(path, "threads", context, points);
      std::cout << "wrote " << path << "\n";
    }
  }
  if (!o.output.empty()) {
    dcgan::write_png_grid(o.output, images, num, o.columns);
    std::cout << "wrote " << o.output << " (" << num << " images)\n";
  }
  if (!o.raw.empty()) {
    dcgan::write_raw_images(o.raw, images, num);
    std::cout << "wrote " << o.raw << "\n";
  }
  return passed ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main("lab10", [&] { return run(argc, argv); });
}
