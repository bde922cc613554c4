// Lab 10, MPI part 1: a student's version, written from the skeleton's TODO text alone (see
// tests/grading/student_versions/README.md).
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include "common/dcgan_model.h"

namespace lab10 {

std::span<const float> scatter_latents(MPI_Comm comm, MPI_Datatype latent,
                                       std::span<const Share> shares, std::span<const float> all,
                                       std::vector<float>& storage) {
  int me = 0, n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  std::vector<int> sendcounts, displs;
  for (const Share& s : shares) {
    sendcounts.push_back(s.count);
    displs.push_back(s.first);
  }
  const int mine = shares[me].count;
  if (me == 0) {
    MPI_Scatterv(all.data(), sendcounts.data(), displs.data(), latent, MPI_IN_PLACE, mine, latent,
                 0, comm);
    return all.subspan(static_cast<size_t>(shares[0].first) * cudalabs::dcgan::kLatent,
                       static_cast<size_t>(mine) * cudalabs::dcgan::kLatent);
  }
  storage.assign(static_cast<size_t>(mine) * cudalabs::dcgan::kLatent, 0.0f);
  MPI_Scatterv(nullptr, nullptr, nullptr, latent, storage.data(), mine, latent, 0, comm);
  return storage;
}

}  // namespace lab10
