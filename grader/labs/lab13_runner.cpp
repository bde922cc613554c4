// Lab 13's runner: the student's softmax and attention variants by name, on the runner's buffers
// (the calls: lab13_remote.h; operands at the referee's offsets, workspaces of the referee's size:
// grader/runner/operands.h).
#include "grader/labs/lab13_remote.h"
#include "grader/labs/lab13_shape.h"
#include "grader/runner/operands.h"
#include "grader/runner/runner.h"
#include "labs/13_attention/lab.h"

namespace {

namespace lab13_remote = grader::lab13_remote;
using grader::runner::Context;
using grader::runner::find_named;
using grader::runner::Missing;

template <class Variant>
const Variant& launchable(std::span<const Variant> variants, const std::string& name) {
  const Variant& variant = find_named(variants, name);
  if (variant.launch == nullptr) throw Missing("variant '" + name + "' has no launch function");
  return variant;
}

void run_softmax(const lab13_remote::Softmax& call, Context& context) {
  const lab13::SoftmaxVariant& variant = launchable(lab13::softmax_variants(), call.variant);
  lab13::SoftmaxArgs args;
  args.rows = call.rows;
  args.columns = call.columns;
  args.input = context.as<const float>(call.input);
  args.output = context.as<float>(call.output);
  variant.launch(args, context.stream());
}

void run_attention(const lab13_remote::Attention& call, Context& context) {
  const lab13::AttentionVariant& variant = launchable(lab13::attention_variants(), call.variant);
  lab13::AttentionArgs args;
  args.shape = lab13_remote::shape_of(call);
  args.q = context.as<const __nv_bfloat16>(call.q);
  args.k = context.as<const __nv_bfloat16>(call.k);
  args.v = context.as<const __nv_bfloat16>(call.v);
  args.o = context.as<__nv_bfloat16>(call.o);
  args.scale = static_cast<float>(call.scale);
  args.workspace_bytes = static_cast<std::size_t>(call.workspace_bytes);
  args.workspace = grader::runner::call_workspace(call, context);
  variant.launch(args, context.stream());
}

// The student's workspace_bytes(shape), for the referee to cap and allocate.
void run_attention_workspace(const lab13_remote::AttentionWorkspace& call, Context& context) {
  const lab13::AttentionVariant& variant = find_named(lab13::attention_variants(), call.variant);
  grader::runner::reply_size(context, variant.workspace_bytes == nullptr
                                          ? 0
                                          : variant.workspace_bytes(lab13_remote::shape_of(call)));
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      remote_handler<lab13_remote::Softmax, &run_softmax>(),
      remote_handler<lab13_remote::Attention, &run_attention>(),
      remote_handler<lab13_remote::AttentionWorkspace, &run_attention_workspace>(),
  };
  return handlers;
}
