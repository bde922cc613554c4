// Lab 00's runner: the student's copy and FMA launches.
#include "grader/runner/runner.h"
#include "labs/00_roofline/lab.h"

namespace {

using grader::Call;
using grader::runner::Context;

void run_copy(const Call& call, Context& context) {
  lab00::launch_copy(context.as<const float>(call, 0), context.as<float>(call, 1),
                     static_cast<std::size_t>(grader::runner::integer(call, 0)), context.stream());
}

void run_fma(const Call& call, Context& context) {
  lab00::launch_fma(context.as<float>(call, 0), grader::runner::integer(call, 0),
                    grader::runner::int_arg(call, 1), context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {{"lab00.copy", &run_copy}, {"lab00.fma", &run_fma}};
  return handlers;
}
