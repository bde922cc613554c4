// lab11_precision_error: what TF32 and BF16 inputs cost the DCGAN generator's images, before any
// kernel is written. On the CPU it runs the reference generator exactly (double throughout) and
// again with the inputs of every GEMM-shaped layer (latents or activations, and the weights)
// rounded as the tensor cores round them, and prints how far the images move, next to the
// tolerance the GPU's images at that precision are checked against (common/dcgan_check.h). Lab 11's
// last part asks for a prediction first: how many correct digits does a BF16 image keep? With
// --fp8 it measures the next rung before any kernel: the transposed convolutions' inputs in FP8
// (E4M3) with scales (fp8_rounding.h), held to BF16's tolerance.
#include "common/cli.h"
#include "common/compute_precision.h"
#include "common/dcgan_check.h"
#include "common/dcgan_inputs.h"
#include "common/dcgan_model.h"
#include "common/reference_dcgan.h"
#include "common/text_table.h"
#include "fp8_rounding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;
using cudalabs::ComputePrecision;

// The largest and the mean |got - exact| over every value, and the mean over images of each
// image's largest.
struct Difference {
  double max = 0.0, mean = 0.0, mean_image_max = 0.0;
};

Difference difference(const std::vector<double>& got, const std::vector<double>& exact, int count) {
  Difference d;
  double sum = 0.0;
  for (int n = 0; n < count; ++n) {
    double image_max = 0.0;
    for (std::size_t e = 0; e < dcgan::kImageFloats; ++e) {
      const std::size_t at = static_cast<std::size_t>(n) * dcgan::kImageFloats + e;
      const double delta = std::abs(got[at] - exact[at]);
      image_max = std::max(image_max, delta);
      sum += delta;
    }
    d.max = std::max(d.max, image_max);
    d.mean_image_max += image_max / count;
  }
  d.mean = sum / (static_cast<double>(count) * dcgan::kImageFloats);
  return d;
}

std::string scientific(double value) {
  std::ostringstream text;
  text.precision(2);
  text << std::scientific << value;
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&]() -> int {
    dcgan::InputFlags inputs;
    inputs.num = 16;
    std::string precisions_text = "tf32,bf16";
    bool per_layer = false, fp8 = false;
    CLI::App app{
        "Lab 11: how far the DCGAN generator's images move when its GEMM-shaped "
        "layers take TF32 or BF16 inputs (the CPU reference, exact and rounded)"};
    dcgan::add_input_flags(app, inputs);
    app.add_option("--precision", precisions_text,
                   "Precisions to compare with the exact images, comma-separated: fp32, tf32, "
                   "bf16 (default tf32,bf16)")
        ->type_name("fp32|tf32|bf16,...");
    app.add_flag("--per-layer", per_layer,
                 "Also round one layer's inputs at a time (linear, tconv1 .. tconv4): which layer "
                 "costs the images most");
    app.add_flag("--fp8", fp8,
                 "Also give the four transposed convolutions FP8 (E4M3) inputs with scales: one "
                 "per tensor, and the weights' one per output channel (held to BF16's tolerance)");
    cudalabs::parse_flags(app, argc, argv);
    std::vector<ComputePrecision> precisions;
    std::stringstream list(precisions_text);
    for (std::string item; std::getline(list, item, ',');)
      precisions.push_back(cudalabs::parse_precision(item));
    if (precisions.empty()) throw cudalabs::FlagError("--precision: no precision given");

    const std::uint64_t seed = dcgan::check_input_flags(app, inputs);
    std::string weights_text, latents_text;
    const dcgan::Weights weights = dcgan::load_weights(inputs.weights, inputs.weights_seed,
                                                       CUDALABS_TRAINED_WEIGHTS, weights_text);
    const dcgan::Latents latents =
        dcgan::load_latents(inputs.input, inputs.num, seed, latents_text);
    std::cout << "weights: " << weights_text << "\nlatents: " << latents_text << "\n";

    const std::vector<double> exact =
        dcgan::reference_generator(weights, latents.values, latents.count);
    cudalabs::TextTable table({{"inputs", false},
                               {"max |diff|", true},
                               {"mean |diff|", true},
                               {"mean of image max", true},
                               {"tolerance max / mean", true},
                               {"within", false}});
    bool within_all = true;
    const char* const layer_names[] = {"linear", "tconv1", "tconv2", "tconv3", "tconv4"};
    // One input setting's rows: its images with every layer of `all` rounded, held to `tolerance`
    // (counted in the exit status when `counts`), then, with --per-layer, each of those layers
    // alone.
    const auto add_rows = [&](const std::string& name, unsigned all,
                              const std::function<std::vector<double>(unsigned)>& images,
                              const dcgan::ImageTolerance& tolerance, bool counts) {
      std::vector<unsigned> masks = {all};
      for (unsigned layer = 0; per_layer && layer < 5; ++layer)
        if (all >> layer & 1u) masks.push_back(1u << layer);
      for (const unsigned mask : masks) {
        const Difference d = difference(images(mask), exact, latents.count);
        std::string label = name, tolerance_text = "-", within_text = "-";
        if (mask == all) {
          const bool within =
              d.max <= tolerance.max_difference && d.mean <= tolerance.mean_difference;
          if (counts) within_all = within_all && within;
          tolerance_text =
              scientific(tolerance.max_difference) + " / " + scientific(tolerance.mean_difference);
          within_text = within ? "yes" : "NO";
        } else {
          label += ", " + std::string(layer_names[std::countr_zero(mask)]) + " only";
        }
        table.add_row({label, scientific(d.max), scientific(d.mean), scientific(d.mean_image_max),
                       tolerance_text, within_text});
      }
    };
    for (const ComputePrecision precision : precisions) {
      // Every layer rounded (what a GPU at this precision computes).
      add_rows(
          cudalabs::precision_name(precision), dcgan::kAllGeneratorLayers,
          [&](unsigned mask) {
            return dcgan::reference_generator(weights, latents.values, latents.count, precision,
                                              mask);
          },
          dcgan::image_tolerance(precision), true);
    }
    // FP8: the transposed convolutions (bits 1 to 4); the linear layer keeps FP32's accuracy, as
    // the generator's tensor-core linear layer does. Activations take one scale a tensor (the
    // batch's largest value), weights one a tensor or one an output channel.
    constexpr unsigned kTransposedConvolutions = dcgan::kAllGeneratorLayers & ~1u;
    for (const bool per_channel : {false, true}) {
      if (!fp8) break;
      dcgan::InputRounding rounding;
      rounding.input = [](int, std::vector<double>& input) { lab11::round_e4m3_per_tensor(input); };
      rounding.weight = [per_channel](int layer, std::vector<float>& filter) {
        const dcgan::TconvShape shape = dcgan::generator_layer(layer, 1);
        if (per_channel)
          lab11::round_e4m3_per_channel(filter, shape.out_channels, shape.in_channels);
        else
          lab11::round_e4m3_per_channel(filter, 1, static_cast<int>(filter.size()));
      };
      add_rows(
          std::string("fp8 e4m3, weights per ") + (per_channel ? "output channel" : "tensor"),
          kTransposedConvolutions,
          [&](unsigned mask) {
            return dcgan::reference_generator(weights, latents.values, latents.count, rounding,
                                              mask);
          },
          dcgan::image_tolerance(ComputePrecision::kBf16), false);
    }
    table.print(std::cout);
    std::cout << "differences from the exact generator (double, nothing rounded) over "
              << latents.count << " images of 64 x 64 x 3 values in [-1, 1]\n";
    if (fp8)
      std::cout << "fp8 rows: the four transposed convolutions' inputs in E4M3, activations with "
                   "one scale a tensor (largest |value| / 448), held to BF16's tolerance; the "
                   "exit status does not count them\n";
    return within_all ? cudalabs::kExitOk : cudalabs::kExitFailed;
  });
}
