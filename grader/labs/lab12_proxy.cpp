// Lab 12's interface as the referee links it: the sum, scan and histogram variants the grader
// names, each launch made in the runner on the student's variant of that name. What the checks
// read of a variant besides its output is the referee's own: the sum's addition depth and
// determinism (lab12_rules.h), the workspace size (the student's, capped), and describe() (a
// placeholder: nothing the grading tests check reads it). The calls: lab12_remote.h.
#include "grader/labs/lab12_remote.h"
#include "grader/labs/lab12_rules.h"
#include "grader/referee/call_operands.h"
#include "grader/referee/given_variants.h"
#include "grader/referee/remote_workspace.h"
#include "labs/12_reduce_scan_histogram/lab.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace remote = grader::remote;
namespace lab12_remote = grader::lab12_remote;
using grader::referee::CallOperands;
using grader::referee::given_variant_names;
using grader::referee::OperandSession;
using grader::referee::RemoteRunner;

constexpr int kMaxVariants = 16;  // per list
constexpr const char* kMadeInTheRunner = "made in the runner";
// Past this many elements an array argument describes no array a test passes: the dummy buffer
// (the call must refuse the arguments before it touches memory).
constexpr std::size_t kMaxElements = std::size_t{1} << 33;

std::int64_t array_bytes(std::size_t count, std::size_t element_bytes) {
  if (count == 0 || count > kMaxElements) return -1;
  return static_cast<std::int64_t>(count * element_bytes);
}

cudalabs::KernelLaunch placeholder(std::size_t) {
  return {};
}

const std::string& name_in(const char* list, int index) {
  return given_variant_names(list).at(index);
}

// ---- Sum ----

template <int I>
void launch_sum(const lab12::SumArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  CallOperands operands(session);
  operands.input(args.input, array_bytes(args.count, sizeof(float)));
  operands.output(args.sum, sizeof(float), "sum");
  const std::vector<remote::Operand> placed = operands.place();
  // The runner allocates the workspace itself, poisoned (grader/runner/operands.h).
  session.run({remote::to_call(
      lab12_remote::Sum{.variant = name_in("sum_variants", I),
                        .count = static_cast<std::int64_t>(args.count),
                        .workspace_bytes = static_cast<std::int64_t>(args.workspace_bytes),
                        .workspace_present = args.workspace != nullptr,
                        .workspace_poisoned = 1,
                        .input = placed[0],
                        .sum = placed[1]})});
}

template <int I>
std::size_t sum_workspace(std::size_t count) {
  return grader::referee::remote_workspace_bytes(
      RemoteRunner::shared(),
      remote::to_call(lab12_remote::SumWorkspace{.variant = name_in("sum_variants", I),
                                                 .count = static_cast<std::int64_t>(count)}),
      grader::lab12_rules::workspace_cap(count), std::to_string(count) + " elements");
}

template <int I>
std::int64_t sum_depth(std::size_t count) {
  return grader::lab12_rules::addition_depth(name_in("sum_variants", I), count);
}

template <int... I>
std::vector<lab12::SumVariant> sum_table(std::integer_sequence<int, I...>) {
  constexpr void (*launches[])(const lab12::SumArgs&, cudaStream_t) = {&launch_sum<I>...};
  constexpr std::size_t (*workspaces[])(std::size_t) = {&sum_workspace<I>...};
  constexpr std::int64_t (*depths[])(std::size_t) = {&sum_depth<I>...};
  const std::vector<std::string>& names = given_variant_names("sum_variants");
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more sum variants than the referee forwards");
  std::vector<lab12::SumVariant> table;
  for (std::size_t i = 0; i < names.size(); ++i) {
    table.push_back({names[i].c_str(), kMadeInTheRunner, launches[i], &placeholder, workspaces[i],
                     depths[i], grader::lab12_rules::deterministic(names[i])});
  }
  return table;
}

// ---- Scan ----

template <int I>
void launch_scan(const lab12::ScanArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  CallOperands operands(session);
  operands.input(args.input, array_bytes(args.count, sizeof(std::uint32_t)));
  operands.output(args.output, array_bytes(args.count, sizeof(std::uint32_t)), "output");
  const std::vector<remote::Operand> placed = operands.place();
  session.run({remote::to_call(
      lab12_remote::Scan{.variant = name_in("scan_variants", I),
                         .count = static_cast<std::int64_t>(args.count),
                         .workspace_bytes = static_cast<std::int64_t>(args.workspace_bytes),
                         .workspace_present = args.workspace != nullptr,
                         .workspace_poisoned = 1,
                         .input = placed[0],
                         .output = placed[1]})});
}

template <int I>
std::size_t scan_workspace(std::size_t count) {
  return grader::referee::remote_workspace_bytes(
      RemoteRunner::shared(),
      remote::to_call(lab12_remote::ScanWorkspace{.variant = name_in("scan_variants", I),
                                                  .count = static_cast<std::int64_t>(count)}),
      grader::lab12_rules::workspace_cap(count), std::to_string(count) + " elements");
}

template <int... I>
std::vector<lab12::ScanVariant> scan_table(std::integer_sequence<int, I...>) {
  constexpr void (*launches[])(const lab12::ScanArgs&, cudaStream_t) = {&launch_scan<I>...};
  constexpr std::size_t (*workspaces[])(std::size_t) = {&scan_workspace<I>...};
  const std::vector<std::string>& names = given_variant_names("scan_variants");
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more scan variants than the referee forwards");
  std::vector<lab12::ScanVariant> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.push_back({names[i].c_str(), kMadeInTheRunner, launches[i], &placeholder, workspaces[i]});
  return table;
}

// ---- Histogram ----

template <int I>
void launch_histogram(const lab12::HistogramArgs& args, cudaStream_t stream) {
  OperandSession session(RemoteRunner::shared(), stream);
  CallOperands operands(session);
  // lab.h: count < 2^32 (a bin is a 32-bit counter); a larger one is refused untouched.
  operands.input(args.input, args.count > 0xFFFFFFFFull ? -1 : array_bytes(args.count, 1));
  operands.output(args.bins, lab12::kBins * sizeof(std::uint32_t), "bins");
  const std::vector<remote::Operand> placed = operands.place();
  session.run(
      {remote::to_call(lab12_remote::Histogram{.variant = name_in("histogram_variants", I),
                                               .count = static_cast<std::int64_t>(args.count),
                                               .input = placed[0],
                                               .bins = placed[1]})});
}

template <int... I>
std::vector<lab12::HistogramVariant> histogram_table(std::integer_sequence<int, I...>) {
  constexpr void (*launches[])(const lab12::HistogramArgs&,
                               cudaStream_t) = {&launch_histogram<I>...};
  const std::vector<std::string>& names = given_variant_names("histogram_variants");
  if (names.size() > sizeof...(I))
    throw std::runtime_error("more histogram variants than the referee forwards");
  std::vector<lab12::HistogramVariant> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.push_back({names[i].c_str(), kMadeInTheRunner, launches[i], &placeholder});
  return table;
}

}  // namespace

namespace lab12 {

std::span<const SumVariant> sum_variants() {
  static const std::vector<SumVariant> table =
      sum_table(std::make_integer_sequence<int, kMaxVariants>{});
  return table;
}

std::span<const ScanVariant> scan_variants() {
  static const std::vector<ScanVariant> table =
      scan_table(std::make_integer_sequence<int, kMaxVariants>{});
  return table;
}

std::span<const HistogramVariant> histogram_variants() {
  static const std::vector<HistogramVariant> table =
      histogram_table(std::make_integer_sequence<int, kMaxVariants>{});
  return table;
}

}  // namespace lab12
