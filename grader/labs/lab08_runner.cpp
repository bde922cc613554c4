// Lab 08's runner: a coarsening factor of the student's list, by name (the call: lab08_remote.h).
#include "grader/labs/lab08_remote.h"
#include "grader/runner/runner.h"
#include "labs/08_coarsening/lab.h"

namespace {

using grader::lab08_remote::Conv;

void run_conv(const Conv& call, grader::runner::Context& context) {
  const lab08::ConvVariant& variant = grader::runner::find_named(lab08::variants(), call.variant);
  cudalabs::ConvArgs args;
  args.shape = {call.n, call.h, call.w, call.c, call.f, call.r, call.s};
  args.input = context.as<const float>(call.input);
  args.filter = context.as<const float>(call.filter);
  args.output = context.as<float>(call.output);
  variant.launch(args, context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {remote_handler<Conv, &run_conv>()};
  return handlers;
}
