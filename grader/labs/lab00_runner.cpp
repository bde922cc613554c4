// Lab 00's runner: the student's copy and FMA launches (the calls: lab00_remote.h).
#include "grader/labs/lab00_remote.h"
#include "grader/runner/runner.h"
#include "labs/00_roofline/lab.h"

namespace {

using grader::lab00_remote::Copy;
using grader::lab00_remote::Fma;
using grader::runner::Context;

void run_copy(const Copy& call, Context& context) {
  lab00::launch_copy(context.as<const float>(call.src), context.as<float>(call.dst),
                     static_cast<std::size_t>(call.count), context.stream());
}

void run_fma(const Fma& call, Context& context) {
  lab00::launch_fma(context.as<float>(call.out), call.threads, call.iterations, context.stream());
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {remote_handler<Copy, &run_copy>(),
                                     remote_handler<Fma, &run_fma>()};
  return handlers;
}
