// Lab 08's runner: a coarsening factor of the student's list, by name.
#include "grader/runner/runner.h"
#include "labs/08_coarsening/lab.h"

namespace {

void run_conv(const grader::Call& call, grader::runner::Context& context) {
  using grader::runner::int_arg;
  const lab08::ConvVariant& variant = grader::runner::find_named(lab08::variants(), call.variant);
  cudalabs::ConvArgs args;
  args.shape = {int_arg(call, 0), int_arg(call, 1), int_arg(call, 2), int_arg(call, 3),
                int_arg(call, 4), int_arg(call, 5), int_arg(call, 6)};
  args.input = context.as<const float>(call, 0);
  args.filter = context.as<const float>(call, 1);
  args.output = context.as<float>(call, 2);
  variant.launch(args, context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {{"conv.variants", &run_conv}};
  return handlers;
}
