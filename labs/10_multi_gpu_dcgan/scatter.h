/// @file labs/10_multi_gpu_dcgan/scatter.h
/// @brief The MPI program's first step of a run: rank 0 hands every rank its share of the latent
/// vectors.
#pragma once

#include "labs/10_multi_gpu_dcgan/lab.h"

#include <mpi.h>

#include <span>
#include <vector>

namespace lab10 {

/// Collective over `comm`: rank 0's `all` holds every latent vector of the run, and `shares[r]`
/// (gpu_share over the ranks of `comm`) says which run of them rank r generates. `latent` is the
/// MPI datatype of one latent vector, so that counts and displacements count vectors. Returns this
/// rank's latent vectors: on rank 0 a view of its own share inside `all` (nothing is copied), on
/// the others `storage`, resized and filled. `all` is ignored outside rank 0.
std::span<const float> scatter_latents(MPI_Comm comm, MPI_Datatype latent,
                                       std::span<const Share> shares, std::span<const float> all,
                                       std::vector<float>& storage);

}  // namespace lab10
