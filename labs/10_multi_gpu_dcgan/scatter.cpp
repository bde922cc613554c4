// Lab 10, MPI part 1 (YOURS): rank 0 hands every rank its share of the latent vectors.
//
// One collective does it: MPI_Scatterv, with counts and displacements taken from `shares` (in
// latent vectors: `latent` is the datatype of one vector, so 65,536 images never overflow an int).
// Rank 0 keeps its own share where it is: pass MPI_IN_PLACE as its receive buffer and return a view
// of its part of `all`. Every other rank resizes `storage` to its share and receives into it.
// scatter.h has the contract; tests/labs/lab10_mpi_parts_test.cpp checks it on 1 to 3 ranks
// (ctest --test-dir build -R lab10.student.Scatter).
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include "labs/10_multi_gpu_dcgan/not_implemented.h"

namespace lab10 {

std::span<const float> scatter_latents(MPI_Comm comm, MPI_Datatype latent,
                                       std::span<const Share> shares, std::span<const float> all,
                                       std::vector<float>& storage) {
  // TODO(lab10): MPI_Scatterv of rank 0's latent vectors, each rank its share.
  (void)comm;
  (void)latent;
  (void)shares;
  (void)all;
  (void)storage;
  throw NotImplemented("scatter_latents");
}

}  // namespace lab10
