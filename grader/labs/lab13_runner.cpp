// Lab 13's runner: the student's softmax and attention variants by name, on the runner's buffers
// (operands at the referee's offsets, workspaces of the referee's size: grader/runner/operands.h).
#include "grader/runner/operands.h"
#include "grader/runner/runner.h"
#include "labs/13_attention/lab.h"

namespace {

using grader::Call;
using grader::runner::Context;
using grader::runner::find_named;
using grader::runner::int_arg;
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

// ints: rows, columns, the operands' offsets; buffers: input, output (one buffer in place).
void run_softmax(const Call& call, Context& context) {
  const lab13::SoftmaxVariant& variant = launchable(lab13::softmax_variants(), call);
  lab13::SoftmaxArgs args;
  args.rows = int_arg(call, 0);
  args.columns = int_arg(call, 1);
  args.input = operand<const float>(call, context, 0, 2);
  args.output = operand<float>(call, context, 1, 2);
  variant.launch(args, context.stream());
}

// ints 0-4: batch, heads, sequence, head_dim, causal.
lab13::AttentionShape shape_of(const Call& call) {
  return {int_arg(call, 0), int_arg(call, 1), int_arg(call, 2), int_arg(call, 3),
          integer(call, 4) != 0};
}

// ints: the shape, workspace (bytes, present, poisoned), the operands' offsets; reals: scale;
// buffers: q, k, v, o.
void run_attention(const Call& call, Context& context) {
  const lab13::AttentionVariant& variant = launchable(lab13::attention_variants(), call);
  lab13::AttentionArgs args;
  args.shape = shape_of(call);
  args.q = operand<const __nv_bfloat16>(call, context, 0, 8);
  args.k = operand<const __nv_bfloat16>(call, context, 1, 8);
  args.v = operand<const __nv_bfloat16>(call, context, 2, 8);
  args.o = operand<__nv_bfloat16>(call, context, 3, 8);
  args.scale = static_cast<float>(grader::runner::real(call, 0));
  args.workspace_bytes = static_cast<std::size_t>(integer(call, 5));
  args.workspace = grader::runner::call_workspace(call, context, 5);
  variant.launch(args, context.stream());
}

// The student's workspace_bytes(shape), for the referee to cap and allocate.
void run_attention_workspace(const Call& call, Context& context) {
  const lab13::AttentionVariant& variant = find_named(lab13::attention_variants(), call.variant);
  grader::runner::reply_size(
      context, variant.workspace_bytes == nullptr ? 0 : variant.workspace_bytes(shape_of(call)));
}

}  // namespace

std::span<const grader::runner::Handler> grader::runner::lab_handlers() {
  static const Handler handlers[] = {
      {"lab13.softmax", &run_softmax},
      {"lab13.attention", &run_attention},
      {"lab13.attention_workspace", &run_attention_workspace},
  };
  return handlers;
}
