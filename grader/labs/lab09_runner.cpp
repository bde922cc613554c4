// Lab 09's runner: the student's four functions, and the whole generator of a variant (given code
// calling them) for the timed and profiled problem.
#include "common/dcgan_model.h"
#include "grader/runner/runner.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"

#include <map>
#include <memory>

namespace {

using grader::Call;
using grader::runner::Context;
using grader::runner::int_arg;

cudalabs::dcgan::TconvShape shape_of(const Call& call) {
  return {int_arg(call, 0), int_arg(call, 1), int_arg(call, 2), int_arg(call, 3), int_arg(call, 4)};
}

lab09::TconvArgs tconv_args(const Call& call, Context& context) {
  lab09::TconvArgs args;
  args.shape = shape_of(call);
  args.input = context.as<const float>(call, 0);
  args.filter = context.as<const float>(call, 1);
  args.output = context.as<float>(call, 2);
  args.epilogue.scale = context.as<const float>(call, 3);
  args.epilogue.shift = context.as<const float>(call, 4);
  const int activation = int_arg(call, 5);
  if (activation < 0 || activation > 2)
    throw grader::ChannelError("tconv: no activation " + std::to_string(activation));
  args.epilogue.activation = static_cast<lab09::Activation>(activation);
  return args;
}

void run_naive(const Call& call, Context& context) {
  lab09::tconv_naive(tconv_args(call, context), context.stream());
}
void run_branch_free(const Call& call, Context& context) {
  lab09::tconv_branch_free(tconv_args(call, context), context.stream());
}
void run_subpixel(const Call& call, Context& context) {
  lab09::tconv_subpixel(tconv_args(call, context), context.stream());
}
void run_lower(const Call& call, Context& context) {
  lab09::lower_tconv_input(shape_of(call), context.as<const float>(call, 0),
                           context.as<float>(call, 1), context.stream());
}

// One generator per (weights, batch), kept: building it (weights uploaded, buffers allocated) and a
// per-layer variant's measured choice happen at the first call, outside the timed ones.
void run_generator(const Call& call, Context& context) {
  static std::map<std::pair<int, std::int64_t>, std::unique_ptr<lab09::Generator>> generators;
  const int batch = int_arg(call, 0);
  const std::int64_t seed = grader::runner::integer(call, 1);
  auto& generator = generators[{batch, seed}];
  if (!generator)
    generator = std::make_unique<lab09::Generator>(
        cudalabs::dcgan::default_weights(static_cast<std::uint64_t>(seed)), batch);
  const lab09::DcganVariant& variant = lab09::find_variant(call.variant);
  const std::array<lab09::TconvMethod, 4> methods =
      generator->methods_for(variant, batch, context.stream());
  generator->run(variant, methods, context.as<const float>(call, 0), batch,
                 context.as<float>(call, 1), context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      {"tconv.naive", &run_naive},       {"tconv.branch_free", &run_branch_free},
      {"tconv.subpixel", &run_subpixel}, {"tconv.lower", &run_lower},
      {"generator.run", &run_generator},
  };
  return handlers;
}
