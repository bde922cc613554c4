#include "labs/10_multi_gpu_dcgan/mpi_table.h"

#include "common/dcgan_model.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <cmath>
#include <cstddef>

namespace lab10 {

using cudalabs::dcgan::kImageFloats;

MpiTable::MpiTable(const ScalingTable& table, const RankSide& side, int timed_count)
    : table_(table), side_(side) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  if (rank_ == 0) latents_ = timed_latents(table, timed_count);
  for (int g : table.gpu_counts) {
    MPI_Comm column = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ < g ? 0 : MPI_UNDEFINED, rank_, &column);
    columns_.push_back(column);
  }
}

MpiTable::~MpiTable() {
  for (MPI_Comm& column : columns_)
    if (column != MPI_COMM_NULL) MPI_Comm_free(&column);
}

void MpiTable::add_cells(cudalabs::TimedSession& session) {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const MPI_Comm column = columns_[c];
    const int gpus = table_.gpu_counts[c];
    for (int num : table_.nums) {
      // Every rank makes every run, failed or not, so that the collectives stay matched.
      const auto run = [this, column, num] {
        if (column == MPI_COMM_NULL) return 0.0;
        cudalabs::CaughtError outcome;
        const double seconds = distributed_generate(column, side_.types, side_.generator, latents_,
                                                    num, side_.output, side_.in_place, outcome);
        if (timing_failure_.code == cudalabs::kExitOk) timing_failure_ = outcome;
        return seconds;
      };
      const auto recheck = [this, column, num, gpus] {
        return column == MPI_COMM_NULL ? cudalabs::Recheck{true, "not in this cell"}
                                       : recheck_cell(column, num, gpus);
      };
      session.add_host(scaling_run(side_.flavour, num, gpus, run, recheck));
    }
  }
}

cudalabs::Recheck MpiTable::recheck_cell(MPI_Comm cell, int num, int gpus) {
  const std::span<float> images =
      rank_ == 0 ? side_.output.floats().first(static_cast<std::size_t>(num) * kImageFloats)
                 : std::span<float>{};
  std::span<const float> latents;
  cudalabs::CaughtError outcome = cudalabs::catch_error([&] {
    if (rank_ == 0) {
      latents = refill_for_recheck(table_, num, gpus, latents_, images);
      side_.output.sync();  // the poison lands before the other ranks of its node write
    }
    side_.generator.poison();
  });
  cudalabs::CaughtError run;
  distributed_generate(cell, side_.types, side_.generator, latents_, num, side_.output,
                       side_.in_place, run);
  if (outcome.code == cudalabs::kExitOk) outcome = run;
  if (checkpoint(cell, outcome, side_.program, side_.rank_label).code != cudalabs::kExitOk)
    return {false, "a rank failed in the run (its line on stderr)"};
  if (rank_ != 0) return {true, "this rank's share generated"};
  return recheck_run(
      table_.weights, latents, images, num, table_.check_images,
      share_by_share([this](std::span<const float> l, int count,
                            std::span<float> i) { side_.generator.generate(l, count, i); },
                     latents, num, gpus),
      table_.precision);
}

cudalabs::CaughtError MpiTable::timing_outcome() const {
  return checkpoint(MPI_COMM_WORLD, timing_failure_, side_.program, side_.rank_label);
}

bool agreed_by_rank0(bool passed) {
  int verdict = passed ? 1 : 0;
  MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return verdict != 0;
}

}  // namespace lab10
