// Lab 12's runner: the student's sum, scan and histogram variants by name, on the runner's buffers
// (operands at the referee's offsets, workspaces of the referee's size: grader/runner/operands.h).
#include "grader/runner/operands.h"
#include "grader/runner/runner.h"
#include "labs/12_reduce_scan_histogram/lab.h"

namespace {

using grader::Call;
using grader::runner::call_workspace;
using grader::runner::Context;
using grader::runner::find_named;
using grader::runner::integer;
using grader::runner::Missing;
using grader::runner::operand;

template <class Variant>
const Variant& launchable(std::span<const Variant> variants, const Call& call) {
  const Variant& variant = find_named(variants, call.variant);
  if (variant.launch == nullptr)
    throw Missing("variant '" + call.variant + "' has no launch function");
  return variant;
}

std::size_t count_of(const Call& call) {
  return static_cast<std::size_t>(integer(call, 0));
}

// ints: count, workspace (bytes, present, poisoned), the operands' offsets; buffers: input, sum.
void run_sum(const Call& call, Context& context) {
  const lab12::SumVariant& variant = launchable(lab12::sum_variants(), call);
  lab12::SumArgs args;
  args.count = count_of(call);
  args.workspace_bytes = static_cast<std::size_t>(integer(call, 1));
  args.workspace = call_workspace(call, context, 1);
  args.input = operand<const float>(call, context, 0, 4);
  args.sum = operand<float>(call, context, 1, 4);
  variant.launch(args, context.stream());
}

// As the sum's; buffers: input, output.
void run_scan(const Call& call, Context& context) {
  const lab12::ScanVariant& variant = launchable(lab12::scan_variants(), call);
  lab12::ScanArgs args;
  args.count = count_of(call);
  args.workspace_bytes = static_cast<std::size_t>(integer(call, 1));
  args.workspace = call_workspace(call, context, 1);
  args.input = operand<const std::uint32_t>(call, context, 0, 4);
  args.output = operand<std::uint32_t>(call, context, 1, 4);
  variant.launch(args, context.stream());
}

// ints: count, the operands' offsets; buffers: input, bins.
void run_histogram(const Call& call, Context& context) {
  const lab12::HistogramVariant& variant = launchable(lab12::histogram_variants(), call);
  lab12::HistogramArgs args;
  args.count = count_of(call);
  args.input = operand<const std::uint8_t>(call, context, 0, 1);
  args.bins = operand<std::uint32_t>(call, context, 1, 1);
  variant.launch(args, context.stream());
}

// The student's workspace_bytes(count), for the referee to cap and allocate.
template <class Variant, std::span<const Variant> (*Variants)()>
void run_workspace(const Call& call, Context& context) {
  const Variant& variant = find_named(Variants(), call.variant);
  grader::runner::reply_size(
      context, variant.workspace_bytes == nullptr ? 0 : variant.workspace_bytes(count_of(call)));
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      {"lab12.sum", &run_sum},
      {"lab12.scan", &run_scan},
      {"lab12.histogram", &run_histogram},
      {"lab12.sum_workspace", &run_workspace<lab12::SumVariant, &lab12::sum_variants>},
      {"lab12.scan_workspace", &run_workspace<lab12::ScanVariant, &lab12::scan_variants>},
  };
  return handlers;
}
