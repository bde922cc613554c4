// Lab 10 solution: rank 0 scatters the latent vectors, each rank its gpu_share.
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include "common/dcgan_model.h"

#include <cstddef>

namespace lab10 {

std::span<const float> scatter_latents(MPI_Comm comm, MPI_Datatype latent,
                                       std::span<const Share> shares, std::span<const float> all,
                                       std::vector<float>& storage) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(size), firsts(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = shares[r].count;
    firsts[r] = shares[r].first;
  }
  const Share mine = shares[rank];
  const std::size_t floats = static_cast<std::size_t>(mine.count) * cudalabs::dcgan::kLatent;
  // Rank 0's share stays where it is (MPI_IN_PLACE): it reads its latents from `all`.
  if (rank != 0) storage.resize(floats);
  MPI_Scatterv(all.data(), counts.data(), firsts.data(), latent,
               rank == 0 ? MPI_IN_PLACE : static_cast<void*>(storage.data()), mine.count, latent, 0,
               comm);
  if (rank == 0)
    return all.subspan(static_cast<std::size_t>(mine.first) * cudalabs::dcgan::kLatent, floats);
  return storage;
}

}  // namespace lab10
