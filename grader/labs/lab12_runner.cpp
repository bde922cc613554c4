// Lab 12's runner: the student's sum, scan and histogram variants by name, on the runner's buffers
// (the calls: lab12_remote.h; operands at the referee's offsets, workspaces of the referee's size:
// grader/runner/operands.h).
#include "grader/labs/lab12_remote.h"
#include "grader/runner/operands.h"
#include "grader/runner/runner.h"
#include "labs/12_reduce_scan_histogram/lab.h"

namespace {

namespace lab12_remote = grader::lab12_remote;
using grader::runner::call_workspace;
using grader::runner::Context;
using grader::runner::find_named;
using grader::runner::Missing;

template <class Variant>
const Variant& launchable(std::span<const Variant> variants, const std::string& name) {
  const Variant& variant = find_named(variants, name);
  if (variant.launch == nullptr) throw Missing("variant '" + name + "' has no launch function");
  return variant;
}

void run_sum(const lab12_remote::Sum& call, Context& context) {
  const lab12::SumVariant& variant = launchable(lab12::sum_variants(), call.variant);
  lab12::SumArgs args;
  args.count = static_cast<std::size_t>(call.count);
  args.workspace_bytes = static_cast<std::size_t>(call.workspace_bytes);
  args.workspace = call_workspace(call, context);
  args.input = context.as<const float>(call.input);
  args.sum = context.as<float>(call.sum);
  variant.launch(args, context.stream());
}

void run_scan(const lab12_remote::Scan& call, Context& context) {
  const lab12::ScanVariant& variant = launchable(lab12::scan_variants(), call.variant);
  lab12::ScanArgs args;
  args.count = static_cast<std::size_t>(call.count);
  args.workspace_bytes = static_cast<std::size_t>(call.workspace_bytes);
  args.workspace = call_workspace(call, context);
  args.input = context.as<const std::uint32_t>(call.input);
  args.output = context.as<std::uint32_t>(call.output);
  variant.launch(args, context.stream());
}

void run_histogram(const lab12_remote::Histogram& call, Context& context) {
  const lab12::HistogramVariant& variant = launchable(lab12::histogram_variants(), call.variant);
  lab12::HistogramArgs args;
  args.count = static_cast<std::size_t>(call.count);
  args.input = context.as<const std::uint8_t>(call.input);
  args.bins = context.as<std::uint32_t>(call.bins);
  variant.launch(args, context.stream());
}

// The student's workspace_bytes(count), for the referee to cap and allocate.
template <class Query, class Variant, std::span<const Variant> (*Variants)()>
void run_workspace(const Query& call, Context& context) {
  const Variant& variant = find_named(Variants(), call.variant);
  grader::runner::reply_size(context,
                             variant.workspace_bytes == nullptr
                                 ? 0
                                 : variant.workspace_bytes(static_cast<std::size_t>(call.count)));
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  using lab12_remote::ScanWorkspace;
  using lab12_remote::SumWorkspace;
  static const Handler handlers[] = {
      remote_handler<lab12_remote::Sum, &run_sum>(),
      remote_handler<lab12_remote::Scan, &run_scan>(),
      remote_handler<lab12_remote::Histogram, &run_histogram>(),
      remote_handler<SumWorkspace,
                     &run_workspace<SumWorkspace, lab12::SumVariant, &lab12::sum_variants>>(),
      remote_handler<ScanWorkspace,
                     &run_workspace<ScanWorkspace, lab12::ScanVariant, &lab12::scan_variants>>(),
  };
  return handlers;
}
