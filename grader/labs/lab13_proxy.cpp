// Lab 13's interface as the referee links it: the softmax and attention variants the grader names,
// each launch made in the runner on the student's variant of that name. Whether a rung can run on
// this GPU is the grader's word (given_variants.h), the workspace size the student's capped
// (lab13_rules.h), and describe() a placeholder: nothing the grading tests check reads it. The
// calls: lab13_remote.h.
#include "grader/labs/lab13_remote.h"
#include "grader/labs/lab13_rules.h"
#include "grader/labs/lab13_shape.h"
#include "grader/referee/call_operands.h"
#include "grader/referee/given_variants.h"
#include "grader/referee/remote_workspace.h"
#include "labs/13_attention/lab.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace remote = grader::remote;
namespace lab13_remote = grader::lab13_remote;
using grader::referee::CallOperands;
using grader::referee::given_variant_names;
using grader::referee::OperandSession;
using grader::referee::RemoteRunner;

constexpr int kMaxVariants = 16;  // per list
constexpr const char* kMadeInTheRunner = "made in the runner";
// Past this many elements an array argument describes no array a test passes: the dummy buffer
// (the call must refuse the arguments before it touches memory).
constexpr long long kMaxElements = 1LL << 33;

const std::string& name_in(const char* list, int index) {
  return given_variant_names(list).at(index);
}

// ---- Softmax ----

std::int64_t matrix_bytes(int rows, int columns) {
  const long long elements = static_cast<long long>(rows) * columns;
  if (rows < 1 || columns < 1 || elements > kMaxElements) return -1;
  return elements * static_cast<std::int64_t>(sizeof(float));
}

template <int I>
void launch_softmax(const lab13::SoftmaxArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  CallOperands operands(session);
  const std::int64_t bytes = matrix_bytes(args.rows, args.columns);
  operands.input(args.input, bytes);
  operands.output(args.output, bytes, "output");  // in place: one buffer with the input
  const std::vector<remote::Operand> placed = operands.place();
  session.run({remote::to_call(lab13_remote::Softmax{.variant = name_in("softmax_variants", I),
                                                     .rows = args.rows,
                                                     .columns = args.columns,
                                                     .input = placed[0],
                                                     .output = placed[1]})});
}

cudalabs::KernelLaunch softmax_placeholder(int, int) {
  return {};
}

template <int... I>
std::vector<lab13::SoftmaxVariant> softmax_table(std::integer_sequence<int, I...>) {
  constexpr void (*launches[])(const lab13::SoftmaxArgs&, cudaStream_t) = {&launch_softmax<I>...};
  const std::vector<std::string>& names = given_variant_names("softmax_variants");
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more softmax variants than the referee forwards");
  std::vector<lab13::SoftmaxVariant> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.push_back({names[i].c_str(), kMadeInTheRunner, launches[i], &softmax_placeholder});
  return table;
}

// ---- Attention ----

// The bytes of one of Q, K, V, O, or -1 for a shape lab.h does not allow (nothing to copy).
std::int64_t tensor_bytes(const lab13::AttentionShape& shape) {
  const bool valid = shape.batch >= 1 && shape.heads >= 1 && shape.sequence >= 1 &&
                     (shape.head_dim == 64 || shape.head_dim == 128) &&
                     shape.heads_total() <= 65535;
  if (!valid || static_cast<long long>(shape.elements()) > kMaxElements) return -1;
  return static_cast<std::int64_t>(shape.elements() * sizeof(__nv_bfloat16));
}

template <int I>
void launch_attention(const lab13::AttentionArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  CallOperands operands(session);
  const std::int64_t bytes = tensor_bytes(args.shape);
  operands.input(args.q, bytes);
  operands.input(args.k, bytes);
  operands.input(args.v, bytes);
  operands.output(args.o, bytes, "o");
  const std::vector<remote::Operand> placed = operands.place();
  // The runner allocates the workspace itself, poisoned (grader/runner/operands.h).
  const lab13_remote::Attention call{
      .variant = name_in("attention_variants", I),
      .workspace_bytes = static_cast<std::int64_t>(args.workspace_bytes),
      .workspace_present = args.workspace != nullptr,
      .workspace_poisoned = 1,
      .scale = args.scale,
      .q = placed[0],
      .k = placed[1],
      .v = placed[2],
      .o = placed[3]};
  session.run({remote::to_call(lab13_remote::with_shape(call, args.shape))});
}

template <int I>
std::size_t attention_workspace(const lab13::AttentionShape& shape) {
  return grader::referee::remote_workspace_bytes(
      RemoteRunner::shared(),
      remote::to_call(lab13_remote::with_shape(
          lab13_remote::AttentionWorkspace{.variant = name_in("attention_variants", I)}, shape)),
      grader::lab13_rules::workspace_cap(shape), shape.label());
}

template <int I>
std::string attention_unavailable() {
  return grader::referee::unavailable_reason(name_in("attention_variants", I));
}

cudalabs::KernelLaunch attention_placeholder(const lab13::AttentionShape&) {
  return {};
}

template <int... I>
std::vector<lab13::AttentionVariant> attention_table(std::integer_sequence<int, I...>) {
  constexpr void (*launches[])(const lab13::AttentionArgs&,
                               cudaStream_t) = {&launch_attention<I>...};
  constexpr std::size_t (*workspaces[])(const lab13::AttentionShape&) = {
      &attention_workspace<I>...};
  constexpr std::string (*availability[])() = {&attention_unavailable<I>...};
  const std::vector<std::string>& names = given_variant_names("attention_variants");
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more attention variants than the referee forwards");
  std::vector<lab13::AttentionVariant> table;
  for (std::size_t i = 0; i < names.size(); ++i) {
    table.push_back({names[i].c_str(), kMadeInTheRunner, launches[i], &attention_placeholder,
                     workspaces[i], availability[i]});
  }
  return table;
}

}  // namespace

namespace lab13 {

std::span<const SoftmaxVariant> softmax_variants() {
  static const std::vector<SoftmaxVariant> table =
      softmax_table(std::make_integer_sequence<int, kMaxVariants>{});
  return table;
}

std::span<const AttentionVariant> attention_variants() {
  static const std::vector<AttentionVariant> table =
      attention_table(std::make_integer_sequence<int, kMaxVariants>{});
  return table;
}

}  // namespace lab13
