// Lab 10, MPI part 3 (YOURS): every rank brings its outcome to a checkpoint after each phase, so
// that either all ranks go on or all stop, with one line from rank 0. A rank that stopped alone
// would leave the others waiting forever in the next collective.
//
//  1. Agree on the outcome: MPI_Allreduce of the exit code (MPI_MAX gives the worst) and of a
//     "stopped" flag (MPI_SUM counts the failing ranks). A rank stopped if its code is not
//     kExitOk or it printed --help. Nobody stopped: return {}.
//  2. If any rank showed --help (another MPI_Allreduce), return {kExitOk, "", true}: rank 0 has
//     printed the help, and nobody prints an error.
//  3. Otherwise rank 0 prints one line for the lowest failing rank:
//     "`program`: `rank_label`: message", plus " (F of N ranks failed)" when F > 1. Rank 0 does
//     not know the others' messages: bring them with one MPI_Gather of fixed-size lines (e.g. 512
//     chars, '\0'-padded; an empty line for a rank that did not fail).
//  4. Every rank returns {worst code, "failed"}.
// checkpoint.h has the contract; ctest --test-dir build -R lab10.student.Checkpoint tests it.
#include "labs/10_multi_gpu_dcgan/checkpoint.h"

#include "labs/10_multi_gpu_dcgan/not_implemented.h"

namespace lab10 {

cudalabs::CaughtError checkpoint(MPI_Comm comm, const cudalabs::CaughtError& mine,
                                 const std::string& program, const std::string& rank_label) {
  // TODO(lab10): agree on every rank's outcome; rank 0 names the first failing rank.
  (void)comm;
  (void)mine;
  (void)program;
  (void)rank_label;
  throw NotImplemented("checkpoint");
}

}  // namespace lab10
