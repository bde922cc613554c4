// Lab 09's runner: the student's four functions, and the whole generator of a variant (given code
// calling them) for the timed and profiled problem (the calls: lab09_remote.h).
#include "common/dcgan_model.h"
#include "grader/labs/lab09_remote.h"
#include "grader/runner/runner.h"
#include "labs/09_dcgan/generator.h"
#include "labs/09_dcgan/lab.h"

#include <map>
#include <memory>

namespace {

namespace lab09_remote = grader::lab09_remote;
using grader::runner::Context;

// The shape a call carries (Tconv's and Lower's five sizes).
template <class Args>
cudalabs::dcgan::TconvShape shape_of(const Args& call) {
  return {call.batch, call.height, call.width, call.in_channels, call.out_channels};
}

template <const char* Function>
lab09::TconvArgs tconv_args(const lab09_remote::Tconv<Function>& call, Context& context) {
  lab09::TconvArgs args;
  args.shape = shape_of(call);
  args.input = context.as<const float>(call.input);
  args.filter = context.as<const float>(call.filter);
  args.output = context.as<float>(call.output);
  args.epilogue.scale = context.as<const float>(call.scale);
  args.epilogue.shift = context.as<const float>(call.shift);
  if (call.activation < 0 || call.activation > 2)
    throw grader::ChannelError("tconv: no activation " + std::to_string(call.activation));
  args.epilogue.activation = static_cast<lab09::Activation>(call.activation);
  return args;
}

void run_naive(const lab09_remote::TconvNaive& call, Context& context) {
  lab09::tconv_naive(tconv_args(call, context), context.stream());
}
void run_branch_free(const lab09_remote::TconvBranchFree& call, Context& context) {
  lab09::tconv_branch_free(tconv_args(call, context), context.stream());
}
void run_subpixel(const lab09_remote::TconvSubpixel& call, Context& context) {
  lab09::tconv_subpixel(tconv_args(call, context), context.stream());
}
void run_lower(const lab09_remote::Lower& call, Context& context) {
  lab09::lower_tconv_input(shape_of(call), context.as<const float>(call.input),
                           context.as<float>(call.lowered), context.stream());
}

// One generator per (weights, batch), kept: building it (weights uploaded, buffers allocated) and a
// per-layer variant's measured choice happen at the first call, outside the timed ones.
void run_generator(const lab09_remote::Generator& call, Context& context) {
  static std::map<std::pair<int, std::int64_t>, std::unique_ptr<lab09::Generator>> generators;
  auto& generator = generators[{call.batch, call.weights_seed}];
  if (!generator)
    generator = std::make_unique<lab09::Generator>(
        cudalabs::dcgan::default_weights(static_cast<std::uint64_t>(call.weights_seed)),
        call.batch);
  const lab09::DcganVariant& variant = lab09::find_variant(call.variant);
  const std::array<lab09::TconvMethod, 4> methods =
      generator->methods_for(variant, call.batch, context.stream());
  generator->run(variant, methods, context.as<const float>(call.latents), call.batch,
                 context.as<float>(call.images), context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      remote_handler<lab09_remote::TconvNaive, &run_naive>(),
      remote_handler<lab09_remote::TconvBranchFree, &run_branch_free>(),
      remote_handler<lab09_remote::TconvSubpixel, &run_subpixel>(),
      remote_handler<lab09_remote::Lower, &run_lower>(),
      remote_handler<lab09_remote::Generator, &run_generator>(),
  };
  return handlers;
}
