// Lab 09 driver (`lab09`, `lab09_solution`, and `dcgan`, the finished program of programs/; the
// protocol: common/lab_driver.h): loads the weights and latent vectors, checks every variant's
// images against the CPU reference generator, times each variant per batch and per layer, checks
// it again in its timed buffers, runs the end-to-end pipeline (host memory to host memory), and
// writes the images as a PNG grid and as raw floats. --precision runs what the program links
// besides lab 09's FP32 kernels (precision_backend.h): nothing in the labs' programs; lab 11's
// tensor-core layers in `dcgan`, whose tf32 and bf16 variants run beside lab 09's FP32 sub-pixel
// variant and are checked against both the CPU reference and that variant.
#include "common/cli.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/earlier_labs.h"
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/driver_runs.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using cudalabs::ComputePrecision;
using lab09::DcganVariant;

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
  std::string save_latents;
  std::string save_weights;
  std::string timeline;
};

// The lab's own flags; --variant is its own too (lab09::find_variant names the known variants,
// and at a reduced precision the precision's variant joins them).
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
  app.add_option("--save-latents", o.save_latents,
                 "Also write the latent vectors used to this .cldz file")
      ->type_name("FILE");
  app.add_option("--save-weights", o.save_weights,
                 "Also write the weights used to this .cldw file (float32)")
      ->type_name("FILE");
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

// Loads the weights and latents the flags name and checks the sizes against host memory.
lab09::Inputs load_inputs(const CLI::App& app, const Options& o) {
  lab09::Inputs in;
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
  cudalabs::require_host_memory(
      static_cast<std::size_t>(in.num) * dcgan::kImageFloats * sizeof(float) * 2,
      "--num " + std::to_string(in.num));
  if (!o.save_latents.empty())
    dcgan::write_file_bytes(o.save_latents, dcgan::serialize_latents(in.latents));
  if (!o.save_weights.empty())
    dcgan::write_file_bytes(o.save_weights, dcgan::serialize_weights(in.weights));
  return in;
}

// The precision's backend on this GPU (one line where it cannot run it) and room for a batch; the
// precision's variant joins `selected`.
lab09::PrecisionBackend prepare_device(int batch, ComputePrecision precision,
                                       std::vector<const DcganVariant*>& selected) {
  lab09::PrecisionBackend backend = lab09::precision_backend(precision);
  if (backend.variant) selected.push_back(backend.variant);
  cudalabs::require_device_memory(
      lab09::Generator::device_bytes(batch) + lab09::precision_device_bytes(precision, batch) +
          3 * static_cast<std::size_t>(batch) * (dcgan::kImageFloats + 100) * sizeof(float) * 2,
      "--batch " + std::to_string(batch));
  return backend;
}

// The header: the program, the device, the inputs, and the other labs' kernels this program runs
// (lab 07's GEMM, and those of its precisions: lab 11's in `dcgan`).
void print_header(std::ostream& out, const cudalabs::DeviceInfo& device, const lab09::Inputs& in) {
  std::vector<cudalabs::EarlierLab> labs{{"07", cudalabs_lab07_kernels_build()}};
  for (const cudalabs::EarlierLab& lab : lab09::precision_labs()) labs.push_back(lab);
  out << cudalabs::program_name() << ": the DCGAN generator of [DCGAN-SHPC]\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs)\n"
      << "weights: " << in.weights_text << "\nlatents: " << in.latents_text
      << "\nimages: " << in.num << ", batch " << in.batch << "\n"
      << cudalabs::earlier_labs_line(labs, std::string(cudalabs_lab09_kernels_build()) == "student")
      << "\n";
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Lab 09: the DCGAN generator of [DCGAN-SHPC] on one GPU. Checks every variant "
      "against the CPU reference generator, times it per layer and end to end, and writes the "
      "images."};
  register_flags(app, o);
  cudalabs::DriverFlags flags;  // --variant and --seed are the lab's own (above, and input flags)
  flags.variant_flag = flags.seed_flag = false;
  cudalabs::LabDriver driver({"lab09", "the DCGAN generator"}, app, flags);
  if (!driver.parse(argc, argv, cudalabs::variant_names(lab09::variants())))
    return cudalabs::kExitOk;
  if (!o.timeline.empty() && !std::ofstream(o.timeline)) {  // before any GPU work
    throw cudalabs::FlagError("--timeline: '" + o.timeline + "' cannot be written");
  }
  const ComputePrecision precision = checked_precision(o);
  std::vector<const DcganVariant*> selected = selected_variants(o, precision);
  const lab09::Inputs in = load_inputs(app, o);
  driver.use_seed(in.seed);
  std::ostream& out = driver.out();
  driver.open_device();
  const lab09::PrecisionBackend backend = prepare_device(in.batch, precision, selected);
  driver.begin([&](std::ostream& header) { print_header(header, driver.device(), in); });
  lab09::Session session(in, backend);

  // ---- Check: the first batch, sampled images against the CPU reference ----
  const std::vector<int> picks = dcgan::spread_picks(in.batch, o.check_images);
  const std::vector<double> reference =
      dcgan::reference_images(in.weights, in.latents.values, picks);
  const std::map<std::string, lab09::Checked> checked =
      lab09::check_variants(out, session, selected, in, picks, reference, precision);
  bool all_passed = std::all_of(checked.begin(), checked.end(),
                                [](const auto& c) { return c.second.check.passed; });

  // ---- Time: each passing variant on one batch, then per layer, then each checked again ----
  std::map<std::string, cudalabs::BenchmarkMedian> medians;
  std::vector<lab09::LayerRecord> layers;
  if (!driver.verify_only()) {
    lab09::add_timed_runs(driver, session, selected, checked, in, picks);
    medians = driver.time();
    layers = lab09::time_layers(session, selected, checked, in.batch);
    driver.recheck();
  }

  // ---- Report ----
  const DcganVariant* fastest = lab09::print_summary(driver, selected, checked, medians, in.batch);
  lab09::print_layers(out, layers, in.batch);
  if (!fastest) {
    out << "\nno variant passed: nothing generated end to end\n";
    return cudalabs::kExitFailed;
  }

  // ---- End to end: host latents -> host images, the fastest variant ----
  std::vector<float> images(static_cast<std::size_t>(in.num) * dcgan::kImageFloats);
  const lab09::EndToEndRecord end_to_end = lab09::run_end_to_end(
      out, session, *fastest, checked.at(fastest->name).methods, in,
      driver.verify_only() ? 0 : o.end_to_end_repetitions, images, o.timeline);

  // ---- Write: the record beside the benchmark JSON, the images ----
  const cudalabs::DriverOptions& shared = driver.options();
  if (!shared.results_dir.empty() && !driver.verify_only()) {
    const std::string tag = shared.results_tag.empty() ? "" : shared.results_tag + "_";
    lab09::write_run_record(
        shared.results_dir + "/lab09_" + tag + driver.device().slug() + "_extra.json", end_to_end,
        layers, in.batch);
  }
  // The end-to-end images must be the checked ones: compare the sampled images once more.
  const dcgan::ImageCheck final_check =
      dcgan::check_images(images, picks, reference, fastest->precision);
  out << "end-to-end images: " << final_check.message << "\n";
  all_passed = all_passed && final_check.passed;
  dcgan::write_requested_images(out, o.output, o.raw, images, in.num, o.columns);
  return driver.exit_code(all_passed);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
