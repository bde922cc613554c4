/// @file labs/07_wide_loads/plan_runs.h
/// @brief What lab07_plans runs for one problem: cuBLAS and the plans it times, in one set of
/// operands, each plan checked against cuBLAS, timed in interleaved rounds, then checked again in
/// the operands it was timed in (plan_check.h).
#pragma once

#include "common/cublas_gemm.h"
#include "common/device_buffer.h"
#include "common/driver_record.h"
#include "common/gemm_types.h"
#include "labs/07_wide_loads/best_plan.h"
#include "labs/07_wide_loads/plan_check.h"

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <vector>

namespace lab07 {

/// One problem's matrices on the device, in its layout, filled with random values.
struct Operands {
  cudalabs::GemmProblem problem;    ///< the shape and the layout (leading dimensions, offsets)
  cudalabs::DeviceBuffer<float> a;  ///< A, as the layout places it
  cudalabs::DeviceBuffer<float> b;  ///< B, as the layout places it
  cudalabs::DeviceBuffer<float> c;  ///< C, as the layout places it

  /// Allocates them and fills A, B and C from derive_seed(run_seed(), "A"), ... .
  explicit Operands(const cudalabs::GemmProblem& p);
  /// Draws fresh A and B into the same buffers, from derive_seed(run_seed(), `prefix` + "A"), ...
  void refill_inputs(const std::string& prefix);
  /// The GEMM's arguments on these buffers (alpha 1, beta 0).
  cudalabs::GemmArgs args();
  /// C's rows as the host sees them (without the padding between rows).
  std::vector<float> c_rows();
  /// Fills C with NaN.
  void poison_c();
};

/// cuBLAS (no plan) or one plan, with what was measured and found.
struct Row {
  std::string name;                ///< "cublas" or the plan's description without the prediction
  const BestPlan* plan = nullptr;  ///< the plan; nullptr for cuBLAS
  std::vector<double> ms;          ///< one per interleaved round
  PlanOutput checked;              ///< before timing
  std::optional<cudalabs::Recheck> after_timing;  ///< in the timed operands
};

/// A plan's name: its tile, "/splitS" when K is split, "/stream" when streamed.
std::string plan_name(const BestPlan& plan);

/// One problem's runs: rows[0] is cuBLAS, then best's choice and every plan the model predicts
/// within `within` of its fastest, in candidate_plans' order.
class ProblemRuns {
 public:
  /// The rows of `problem` on a GPU of `sms` SMs: cuBLAS (through `cublas`), best's choice and the
  /// plans predicted within `within` of the fastest.
  ProblemRuns(const cudalabs::GemmProblem& problem, double within,
              const cudalabs::CublasHandle& cublas, int sms);

  /// Each plan's C against cuBLAS's, C poisoned before each.
  void check();
  /// Every row timed in interleaved rounds (one measurement of each row per round, after
  /// `warmups` untimed ones). A measurement is runs_per_measurement() runs back to back between two
  /// events (about a millisecond of work), so that the host's time to enqueue a run (cuBLAS's
  /// heuristics, a split's allocations) hides behind the GPU's work, as in a real program.
  void time(int warmups, int repetitions);
  /// Every plan right before timing checked again in the operands it was timed in
  /// (recheck_plans): fresh A and B, cuBLAS's C again, each plan's C poisoned and launched once as
  /// timed.
  void recheck();

  /// The runs between a measurement's two events.
  int runs_per_measurement() const { return batch_; }
  /// The plan best_plan chooses for this problem.
  const BestPlan& chosen() const { return chosen_; }
  /// cuBLAS, then every plan, as measured so far.
  const std::vector<Row>& rows() const { return rows_; }

 private:
  void launch(const Row& row, cudaStream_t stream);

  const cudalabs::CublasHandle& cublas_;
  Operands operands_;
  std::vector<BestPlan> plans_;  // the rows point into it
  BestPlan chosen_;
  std::vector<Row> rows_;
  int batch_ = 1;
};

}  // namespace lab07
