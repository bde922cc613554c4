// Lab 09's interface as the referee links it: the four functions of kernels.cu, each call made in
// the runner on the student's code. The generator, the pipeline and lab 07's GEMM are the suite's
// own (given code), linked here. The timed and profiled problem is the whole generator of a variant
// run in the runner, its images checked against the CPU reference at sampled images. The calls:
// lab09_remote.h.
#include "common/dcgan_check.h"
#include "common/dcgan_model.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "grader/labs/lab09_remote.h"
#include "grader/referee/remote_operand.h"
#include "grader/referee/workload.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"

#include <cstring>
#include <random>
#include <stdexcept>

namespace grader::referee {
namespace {

namespace dcgan = cudalabs::dcgan;

bool valid(const dcgan::TconvShape& s) {
  return s.batch >= 1 && s.height >= 1 && s.width >= 1 && s.in_channels >= 1 && s.out_channels >= 1;
}

// One of the student's transposed convolutions (`Tconv`: a lab09_remote::Tconv) on `args`.
template <class Tconv>
void remote_tconv(const lab09::TconvArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  const dcgan::TconvShape& s = args.shape;
  const bool ok = valid(s);
  const std::int64_t k = ok ? s.out_channels : -1;
  const std::int64_t input = session.input(
      args.input, ok ? static_cast<std::int64_t>(s.input_elements()) : -1, sizeof(float));
  const std::int64_t filter = session.input(
      args.filter, ok ? static_cast<std::int64_t>(s.filter_elements()) : -1, sizeof(float));
  const std::int64_t output =
      session.output(args.output, ok ? static_cast<std::int64_t>(s.output_elements()) : -1,
                     sizeof(float), "output");
  const std::int64_t scale = session.input(args.epilogue.scale, k, sizeof(float));
  const std::int64_t shift = session.input(args.epilogue.shift, k, sizeof(float));
  session.run({remote::to_call(Tconv{.batch = s.batch,
                                     .height = s.height,
                                     .width = s.width,
                                     .in_channels = s.in_channels,
                                     .out_channels = s.out_channels,
                                     .activation = static_cast<int>(args.epilogue.activation),
                                     .input = {input},
                                     .filter = {filter},
                                     .output = {output},
                                     .scale = {scale},
                                     .shift = {shift}})});
}

// The generator of one variant at `batch` images a call, in the runner: every set its own latent
// vectors; sampled images of each set against the CPU reference in double.
class GeneratorWorkload : public Workload {
 public:
  GeneratorWorkload(std::string variant, int batch, std::uint64_t weights_seed)
      : variant_(std::move(variant)),
        batch_(batch),
        weights_seed_(weights_seed),
        weights_(dcgan::default_weights(weights_seed)) {
    lab09::find_variant(variant_);  // an unknown name is refused here
  }
  std::string problem() const override { return "b" + std::to_string(batch_); }
  double prepared_work() const override { return static_cast<double>(batch_) * sets_.size(); }
  std::string unit() const override { return "images/s"; }
  double unit_scale() const override { return 1.0; }
  std::size_t bytes_per_set() const override {
    return batch_ * (dcgan::kLatent + dcgan::kImageFloats) * sizeof(float);
  }
  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    std::mt19937_64 random(seed);
    sets_.clear();
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      Set set;
      set.latents.resize(static_cast<std::size_t>(batch_) * dcgan::kLatent);
      cudalabs::fill_uniform(set.latents, random());
      const std::int64_t latents =
          runner.put(set.latents.data(), set.latents.size() * sizeof(float), 0).id;
      set.images = runner.put_poisoned(
          static_cast<std::size_t>(batch_) * dcgan::kImageFloats * sizeof(float), 0);
      calls.push_back(remote::to_call(
          lab09_remote::Generator{.variant = variant_,
                                  .batch = batch_,
                                  .weights_seed = static_cast<std::int64_t>(weights_seed_),
                                  .latents = {latents},
                                  .images = {set.images.id}}));
      sets_.push_back(std::move(set));
    }
    return calls;
  }
  void check(RemoteRunner& runner) override {
    for (std::size_t s = 0; s < sets_.size(); ++s) {
      const std::vector<std::uint8_t> bytes = runner.get(sets_[s].images, "images");
      std::vector<float> images(static_cast<std::size_t>(batch_) * dcgan::kImageFloats);
      std::memcpy(images.data(), bytes.data(), bytes.size());
      for (float value : images)
        if (cudalabs::is_poison(value))
          throw std::runtime_error("wrong images of " + variant_ + ": a value never written");
      const std::vector<int> picks = dcgan::spread_picks(batch_, 2);
      const dcgan::ImageCheck result = dcgan::check_images(
          images, picks, dcgan::reference_images(weights_, sets_[s].latents, picks));
      if (!result.passed)
        throw std::runtime_error("wrong images of " + variant_ + " (input set " +
                                 std::to_string(s + 1) + "): " + result.message);
    }
  }
  std::vector<std::pair<std::string, double>> facts() const override {
    double macs = 0.0;
    for (int layer = 1; layer <= 4; ++layer)
      macs += dcgan::generator_layer(layer, batch_).useful_macs();
    return {{"images", static_cast<double>(batch_)}, {"macs", macs}, {"flops", 2.0 * macs}};
  }

 private:
  struct Set {
    std::vector<float> latents;
    RemoteBuffer images;
  };
  std::string variant_;
  int batch_;
  std::uint64_t weights_seed_;
  dcgan::Weights weights_;
  std::vector<Set> sets_;
};

int int_flag(const std::vector<std::string>& args, const std::string& flag, int fallback) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != flag) continue;
    try {
      std::size_t used = 0;
      const int value = std::stoi(args[i + 1], &used);
      if (used == args[i + 1].size() && value >= 1 && value <= 65536) return value;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(flag + ": '" + args[i + 1] + "' is not a count from 1 to 65536");
  }
  return fallback;
}

}  // namespace

std::unique_ptr<Workload> make_workload(const std::string& variant,
                                        const std::vector<std::string>& args) {
  return std::make_unique<GeneratorWorkload>(variant, int_flag(args, "--batch", 64), 7);
}

}  // namespace grader::referee

namespace lab09 {

void tconv_naive(const TconvArgs& args, cudaStream_t stream) {
  grader::referee::remote_tconv<grader::lab09_remote::TconvNaive>(args, stream);
}
void tconv_branch_free(const TconvArgs& args, cudaStream_t stream) {
  grader::referee::remote_tconv<grader::lab09_remote::TconvBranchFree>(args, stream);
}
void tconv_subpixel(const TconvArgs& args, cudaStream_t stream) {
  grader::referee::remote_tconv<grader::lab09_remote::TconvSubpixel>(args, stream);
}

void lower_tconv_input(const cudalabs::dcgan::TconvShape& shape, const float* input, float* lowered,
                       cudaStream_t stream) {
  grader::referee::OperandSession session(grader::referee::RemoteRunner::shared(), stream);
  const bool ok = grader::referee::valid(shape);
  const std::int64_t rows =
      ok ? static_cast<std::int64_t>(shape.batch) * 4 * shape.height * shape.width : -1;
  const std::int64_t in = session.input(
      input, ok ? static_cast<std::int64_t>(shape.input_elements()) : -1, sizeof(float));
  const std::int64_t out =
      session.output(lowered, ok ? rows * 25 * shape.in_channels : -1, sizeof(float), "lowered");
  session.run(
      {grader::remote::to_call(grader::lab09_remote::Lower{.batch = shape.batch,
                                                           .height = shape.height,
                                                           .width = shape.width,
                                                           .in_channels = shape.in_channels,
                                                           .out_channels = shape.out_channels,
                                                           .input = {in},
                                                           .lowered = {out}})});
}

}  // namespace lab09
