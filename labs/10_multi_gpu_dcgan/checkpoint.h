/// @file labs/10_multi_gpu_dcgan/checkpoint.h
/// @brief How the MPI program's ranks fail together: after each phase every rank brings its outcome
/// to a checkpoint, and either all go on or all stop with one line from rank 0, so that no rank is
/// left waiting in a collective that another has abandoned.
#pragma once

#include "common/cli.h"

#include <mpi.h>

#include <string>

namespace lab10 {

/// Every rank of `comm` calls it at the same point with its own outcome (cudalabs::catch_error of
/// its part of the phase). Returns the agreed outcome: fine only if every rank was; `help` if any
/// rank showed `--help` (all stop quietly); otherwise rank 0 prints one line for the lowest failing
/// rank of `comm`, `program: rank_label: message`, followed by `(N of M ranks failed)` when more
/// did, and every rank gets the worst exit code.
cudalabs::CaughtError checkpoint(MPI_Comm comm, const cudalabs::CaughtError& mine,
                                 const std::string& program, const std::string& rank_label);

}  // namespace lab10
