#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include "common/cli.h"
#include "common/dcgan_check.h"
#include "common/device_info.h"

#include <cmath>
#include <filesystem>

namespace lab10 {

namespace dcgan = cudalabs::dcgan;

void add_run_flags(CLI::App& app, RunFlags& flags, const std::string& record) {
  dcgan::add_input_flags(app, flags.inputs);
  cudalabs::add_integer_flag(
      app, "--batch", flags.batch, 1, 1 << 16,
      "Images per generator run on each GPU (default min(1024, largest run))");
  app.add_option("--output", flags.output, "Write the images as a PNG grid here")
      ->type_name("FILE");
  app.add_option("--raw", flags.raw, "Write the images as raw float32 here (.cldi)")
      ->type_name("FILE");
  cudalabs::add_integer_flag(app, "--columns", flags.columns, 1, 256,
                             "Images per row of the PNG grid");
  cudalabs::add_integer_flag(app, "--check-images", flags.check_images, 1, 1 << 16,
                             "Images checked against the CPU reference (spread over the output)");
  app.add_flag("--verify-only", flags.verify_only, "Check the images, time nothing");
  app.add_option("--scaling", flags.scaling,
                 "num_to_gen values of the scaling table (comma-separated)")
      ->type_name("N,...");
  cudalabs::add_integer_flag(app, "--repetitions", flags.repetitions, 1, 1000,
                             "Timed runs per table cell (median)");
  app.add_option("--precision", flags.precision,
                 "fp32 (lab 09's kernels), or tf32 or bf16: lab 11's tensor-core layers on every "
                 "GPU (the finished programs dcgan_multi_gpu and dcgan_mpi only)")
      ->type_name("fp32|tf32|bf16");
  app.add_option("--results-dir", flags.results_dir,
                 "Write the table as JSON to DIR/" + record + "_<device>.json")
      ->type_name("DIR");
  app.add_option("--results-tag", flags.results_tag,
                 "Name it DIR/" + record + "_<TAG>_<device>.json instead")
      ->type_name("TAG");
}

CheckedRunFlags check_run_flags(const CLI::App& app, const RunFlags& flags) {
  CheckedRunFlags checked;
  checked.seed = dcgan::check_input_flags(app, flags.inputs);
  try {
    checked.precision = cudalabs::parse_precision(flags.precision);
  } catch (const std::invalid_argument& error) {
    throw cudalabs::FlagError(error.what());
  }
  if (!flags.verify_only)
    checked.scaling_nums = parse_int_list("--scaling", flags.scaling, 1, 1 << 20);
  return checked;
}

void require_run_memory(int num, int largest_num) {
  cudalabs::require_host_memory(
      static_cast<std::size_t>(2 * num + largest_num) * dcgan::kImageFloats * sizeof(float),
      "--num " + std::to_string(num) + " with --scaling up to " + std::to_string(largest_num));
}

bool check_run(std::ostream& out, const dcgan::Weights& weights, std::span<const float> latents,
               std::span<const float> images, int num, int check_images,
               const std::function<void(std::span<float>)>& one_gpu,
               const std::string& one_gpu_label, bool& unwritten,
               cudalabs::ComputePrecision precision) {
  const std::vector<int> picks = dcgan::spread_picks(num, check_images);
  const dcgan::ImageCheck check = dcgan::check_images(
      images, picks, dcgan::reference_images(weights, latents, picks), precision);
  out << "check: images";
  for (int p : picks) out << " " << p;
  out << " against the CPU reference generator (double): " << check.message << "\n";
  unwritten = check.unwritten;
  bool passed = check.passed;
  if (one_gpu && !unwritten) {
    std::vector<float> single(images.size(), std::nanf(""));
    one_gpu(single);
    std::string message;
    passed = dcgan::identical_images(images, single, message) && passed;
    out << "identical to " << one_gpu_label << " (" << images.size() << " values): " << message
        << "\n";
  }
  return passed;
}

void report_scaling(std::ostream& out, const RunFlags& flags, const std::string& record,
                    const std::string& flavour, const std::string& device_slug,
                    const std::map<std::string, std::string>& context,
                    const std::vector<ScalingPoint>& points) {
  out << "\nend to end, latent vectors in host memory to images in host memory (median of "
      << flags.repetitions << " runs; efficiency = images/s / (GPUs x one GPU's images/s))\n"
      << scaling_table(points);
  if (flags.results_dir.empty()) return;
  std::filesystem::create_directories(flags.results_dir);
  const std::string path = flags.results_dir + "/" + record + "_" +
                           (flags.results_tag.empty() ? "" : flags.results_tag + "_") +
                           device_slug + ".json";
  write_scaling_json(path, flavour, context, points);
  out << "wrote " << path << "\n";
}

}  // namespace lab10
