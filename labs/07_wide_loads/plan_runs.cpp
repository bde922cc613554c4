#include "labs/07_wide_loads/plan_runs.h"

#include "common/cuda_check.h"
#include "common/event_timer.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/row_alignment.h"
#include "labs/07_wide_loads/lab.h"

#include <algorithm>
#include <span>

namespace lab07 {

Operands::Operands(const cudalabs::GemmProblem& p) : problem(p) {
  const std::size_t offset = static_cast<std::size_t>(p.layout.pointer_offset);
  auto filled = [&](std::size_t count, const char* name) {
    std::vector<float> host(count + offset);
    cudalabs::fill_uniform(host, cudalabs::derive_seed(cudalabs::run_seed(), name));
    return cudalabs::DeviceBuffer<float>(std::span<const float>(host));
  };
  a = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.m, p.shape.k, p.lda())), "A");
  b = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.k, p.shape.n, p.ldb())), "B");
  c = filled(static_cast<std::size_t>(cudalabs::matrix_span(p.shape.m, p.shape.n, p.ldc())), "C");
}

void Operands::refill_inputs(const std::string& prefix) {
  for (auto [buffer, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    std::vector<float> host(buffer->size());
    cudalabs::fill_uniform(host, cudalabs::derive_seed(cudalabs::run_seed(), prefix + name));
    CUDA_CHECK(cudaMemcpy(buffer->data(), host.data(), sizeof(float) * host.size(),
                          cudaMemcpyHostToDevice));
  }
}

cudalabs::GemmArgs Operands::args() {
  const int offset = problem.layout.pointer_offset;
  return {problem.shape.m, problem.shape.n,   problem.shape.k, 1.0f, a.data() + offset,
          problem.lda(),   b.data() + offset, problem.ldb(),   0.0f, c.data() + offset,
          problem.ldc()};
}

std::vector<float> Operands::c_rows() {
  const cudalabs::GemmArgs g = args();
  std::vector<float> rows(static_cast<std::size_t>(g.m) * g.n);
  CUDA_CHECK(cudaMemcpy2D(rows.data(), sizeof(float) * g.n, g.c, sizeof(float) * g.ldc,
                          sizeof(float) * g.n, g.m, cudaMemcpyDeviceToHost));
  return rows;
}

void Operands::poison_c() {
  cudalabs::poison_device(c.data(), sizeof(float) * c.size());
}

namespace {

// Whether A and B allow 128-bit loads (the plans' times are the model's for that path; `best` may
// instead copy misaligned operands where repack_pays, which lab07_plans does not do).
bool vector_loads(const cudalabs::GemmArgs& args) {
  return cudalabs::rows_allow_16_byte_loads(args.a, args.lda) &&
         cudalabs::rows_allow_16_byte_loads(args.b, args.ldb);
}

}  // namespace

std::string plan_name(const BestPlan& plan) {
  std::string name = plan.candidate->name;
  if (plan.splits > 1) name += "/split" + std::to_string(plan.splits);
  if (plan.stream_k()) name += "/stream";
  return name;
}

ProblemRuns::ProblemRuns(const cudalabs::GemmProblem& problem, double within,
                         const cudalabs::CublasHandle& cublas, int sms)
    : cublas_(cublas),
      operands_(problem),
      plans_(candidate_plans(problem.shape, sms, vector_loads(operands_.args()))),
      chosen_(plan_best(problem.shape, sms, vector_loads(operands_.args()))) {
  double fastest_predicted = 1e300;
  for (const BestPlan& plan : plans_)
    fastest_predicted = std::min(fastest_predicted, plan.predicted_us);
  rows_.push_back({"cublas", nullptr, {}, {}, {}});
  for (const BestPlan& plan : plans_) {
    if (plan.same_as(chosen_) || plan.predicted_us <= within * fastest_predicted)
      rows_.push_back({plan_name(plan), &plan, {}, {}, {}});
  }
  batch_ = static_cast<int>(std::clamp(1000.0 / fastest_predicted, 1.0, 50.0));
}

void ProblemRuns::launch(const Row& row, cudaStream_t stream) {
  if (row.plan == nullptr) {
    cudalabs::cublas_gemm_row_major(cublas_, operands_.args(), stream);
  } else {
    launch_plan(*row.plan, operands_.args(), stream);
  }
}

void ProblemRuns::check() {
  operands_.poison_c();
  launch(rows_[0], nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> want = operands_.c_rows();
  for (Row& row : rows_) {
    if (row.plan == nullptr) continue;
    operands_.poison_c();
    launch(row, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    row.checked = compare_output(operands_.c_rows(), want);
  }
}

void ProblemRuns::time(int warmups, int repetitions) {
  auto measure = [&](const Row& row, int untimed) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch_; ++i) launch(row, s);
    };
    return cudalabs::time_each_run_ms(runs, untimed, 1).front() / batch_;
  };
  for (const Row& row : rows_) measure(row, warmups);
  for (int round = 0; round < repetitions; ++round) {
    for (Row& row : rows_) row.ms.push_back(measure(row, 0));
  }
}

void ProblemRuns::recheck() {
  std::vector<Row*> plans;  // those right before timing: the others have already failed the run
  const double bound = error_bound(operands_.problem.shape.k);
  for (Row& row : rows_)
    if (row.plan != nullptr && row.checked.written && row.checked.rel_l2 <= bound)
      plans.push_back(&row);
  const auto c_after = [&](const Row& row) {
    operands_.poison_c();
    launch(row, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return operands_.c_rows();
  };
  const std::vector<cudalabs::Recheck> rechecks = recheck_plans(
      static_cast<int>(plans.size()), operands_.problem.shape.k,
      [&] { operands_.refill_inputs("recheck "); }, [&] { return c_after(rows_[0]); },
      [&](int i) { return c_after(*plans[static_cast<std::size_t>(i)]); });
  for (std::size_t i = 0; i < plans.size(); ++i) plans[i]->after_timing = rechecks[i];
}

}  // namespace lab07
