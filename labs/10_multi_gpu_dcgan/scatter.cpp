// ---- The optional challenge: lab 10's MPI parts (the handout's "Optional: the MPI parts").
// Lab 10, optional MPI part 1 (YOURS): rank 0 hands every rank its share of the latent vectors.
//
// What must hold (scatter.h has the contract): every rank ends with exactly its share of `all`, in
// order, with one collective call; rank 0's share stays where it is (no copy of it); counts never
// overflow an int, even for 65,536 images. How to get there: the handout's hints for this part, a
// nudge, the approach and a detail, one at a time. tests/labs/lab10_mpi_parts_test.cpp checks it on
// 1 to 3 ranks (ctest --test-dir build -R lab10.student.Scatter).
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
