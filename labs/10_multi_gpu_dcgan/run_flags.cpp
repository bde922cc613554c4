#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include "common/benchmark_support.h"
#include "common/cli.h"
#include "common/dcgan_check.h"
#include "common/device_info.h"
#include "common/driver_record.h"
#include "common/json_record.h"
#include "common/text_table.h"
#include "labs/10_multi_gpu_dcgan/gpu_worker.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <algorithm>
#include <cmath>
#include <sstream>

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
  app.add_option("--scaling", flags.scaling,
                 "num_to_gen values of the scaling table (comma-separated)")
      ->type_name("N,...");
  app.add_option("--precision", flags.precision,
                 "fp32 (lab 09's kernels), or tf32 or bf16: lab 11's tensor-core layers on every "
                 "GPU (the finished programs dcgan_multi_gpu and dcgan_mpi only)")
      ->type_name("fp32|tf32|bf16");
  // A table cell is a fixed number of host-timed runs on every rank: no --min-time.
  cudalabs::DriverFlags shared;
  shared.lab_id = record;
  shared.checked = "table cell";
  shared.variant_flag = shared.list_flag = shared.min_time_flag = shared.warmups_flag = false;
  shared.seed_flag = false;  // --seed is an input flag (add_input_flags)
  cudalabs::add_driver_flags(app, flags.driver, shared);
}

CheckedRunFlags check_run_flags(const CLI::App& app, const RunFlags& flags) {
  CheckedRunFlags checked;
  checked.seed = dcgan::check_input_flags(app, flags.inputs);
  try {
    checked.precision = cudalabs::parse_precision(flags.precision);
  } catch (const std::invalid_argument& error) {
    throw cudalabs::FlagError(error.what());
  }
  if (!flags.driver.verify_only)
    checked.scaling_nums = parse_int_list("--scaling", flags.scaling, 1, 1 << 20);
  return checked;
}

void require_run_memory(int num, int largest_num) {
  cudalabs::require_host_memory(
      static_cast<std::size_t>(2 * num + largest_num) * dcgan::kImageFloats * sizeof(float),
      "--num " + std::to_string(num) + " with --scaling up to " + std::to_string(largest_num));
}

int largest_run(int num, const std::vector<int>& scaling_nums) {
  int largest = num;
  for (int n : scaling_nums) largest = std::max(largest, n);
  require_run_memory(num, largest);
  return largest;
}

int run_batch(const RunFlags& flags, int largest_num) {
  return flags.batch > 0 ? flags.batch : std::min(1024, largest_num);
}

void print_run_inputs(std::ostream& out, const std::string& weights_text,
                      const std::string& latents_text, int num, int batch) {
  out << "weights: " << weights_text << "\nlatents: " << latents_text << "\nimages: " << num
      << ", batches of up to " << batch << " per GPU\n";
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

std::function<void(std::span<float>)> share_by_share(GenerateAlone alone,
                                                     std::span<const float> latents, int num,
                                                     int parts) {
  return [alone = std::move(alone), latents, num, parts](std::span<float> single) {
    for (int p = 0; p < parts; ++p) {
      const Share share = gpu_share(num, parts, p);
      if (share.count == 0) continue;
      alone(latents.subspan(static_cast<std::size_t>(share.first) * dcgan::kLatent,
                            static_cast<std::size_t>(share.count) * dcgan::kLatent),
            share.count,
            single.subspan(static_cast<std::size_t>(share.first) * dcgan::kImageFloats,
                           static_cast<std::size_t>(share.count) * dcgan::kImageFloats));
    }
  };
}

bool check_first_run(std::ostream& out, const RunFlags& flags, const CheckedRunFlags& checked,
                     const dcgan::Weights& weights, std::span<const float> latents,
                     std::span<const float> images, int num, GpuWorker* alone, int parts,
                     const std::string& alone_label, bool& unwritten) {
  std::function<void(std::span<float>)> one_gpu;
  if (alone != nullptr && parts > 1) {
    one_gpu = share_by_share([alone](std::span<const float> l, int count,
                                     std::span<float> i) { alone->generate(l, count, i); },
                             latents, num, parts);
  }
  return check_run(out, weights, latents, images, num, flags.check_images, one_gpu, alone_label,
                   unwritten, checked.precision);
}

void print_first_run(std::ostream& out, int num, double seconds) {
  out << "first run: " << num << " images in " << cudalabs::TextTable::number(seconds * 1e3, 2)
      << " ms (untimed warm-up)\n";
}

cudalabs::Recheck recheck_run(const dcgan::Weights& weights, std::span<const float> latents,
                              std::span<const float> images, int num, int check_images,
                              const std::function<void(std::span<float>)>& one_gpu,
                              cudalabs::ComputePrecision precision) {
  std::ostringstream lines;
  bool unwritten = false;
  const bool passed = check_run(lines, weights, latents, images, num, check_images, one_gpu,
                                "one GPU's run, share by share", unwritten, precision);
  std::string message = "fresh latents, images poisoned: " + lines.str();
  for (std::size_t at; (at = message.find('\n')) != std::string::npos;)
    message.replace(at, 1, at + 1 == message.size() ? "" : "; ");
  return {passed, message};
}

std::map<std::string, std::string> run_record_context(int argc, char** argv,
                                                      const std::vector<int>& devices,
                                                      const CheckedRunFlags& checked,
                                                      const std::string& weights_text) {
  std::map<std::string, std::string> context =
      record_context(argc, argv, devices, cudalabs::built_from_commit());
  context["seed"] = std::to_string(checked.seed);
  context["precision"] = cudalabs::precision_name(checked.precision);
  context["weights"] = weights_text;
  return context;
}

void report_scaling(std::ostream& out, const RunFlags& flags, const std::string& record,
                    const std::string& device_slug,
                    const std::map<std::string, std::string>& context,
                    const std::vector<cudalabs::HostMedian>& medians,
                    const std::map<std::string, cudalabs::Recheck>& rechecks,
                    const std::string& also) {
  out << "\nend to end, latent vectors in host memory to images in host memory (median of "
      << flags.driver.timing.repetitions
      << " runs; efficiency = images/s / (GPUs x one GPU's images/s))\n"
      << scaling_table(medians);
  std::string failed;  // the cells right when first checked, wrong where they were timed
  for (const auto& [name, recheck] : rechecks)
    if (!recheck.passed) failed += (failed.empty() ? "" : ", ") + name;
  if (!failed.empty())
    out << "check: FAIL after timing: " << failed << " (the recheck lines above)\n";
  const nlohmann::json written = cudalabs::host_record(context, medians, rechecks);
  if (!also.empty()) cudalabs::write_json_file(also, written);
  const std::string path = cudalabs::record_file_of(cudalabs::record_output_args(
      flags.driver.results_dir, record, flags.driver.results_tag, device_slug));
  if (path.empty()) return;
  cudalabs::write_json_file(path, written);
  out << "wrote " << path << "\n";
}

}  // namespace lab10
