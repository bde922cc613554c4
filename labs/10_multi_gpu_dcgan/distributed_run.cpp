#include "labs/10_multi_gpu_dcgan/distributed_run.h"

#include "common/dcgan_model.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace lab10 {

using cudalabs::dcgan::kImageFloats;
using cudalabs::dcgan::kLatent;

ImageTypes::ImageTypes() {
  MPI_Type_contiguous(static_cast<int>(kLatent), MPI_FLOAT, &latent);
  MPI_Type_commit(&latent);
  MPI_Type_contiguous(static_cast<int>(kImageFloats), MPI_FLOAT, &image);
  MPI_Type_commit(&image);
}

ImageTypes::~ImageTypes() {
  MPI_Type_free(&latent);
  MPI_Type_free(&image);
}

double distributed_generate(MPI_Comm comm, const ImageTypes& types, RankGenerator& generator,
                            std::span<const float> latents, int num, const NodeOutput& output,
                            bool in_place, cudalabs::CaughtError& outcome) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<Share> shares(size);
  std::vector<int> writes_in_place(size);
  const int mine_in_place = in_place ? 1 : 0;
  MPI_Allgather(&mine_in_place, 1, MPI_INT, writes_in_place.data(), 1, MPI_INT, comm);
  int largest_sent = 0;
  outcome = {};
  for (int r = 0; r < size; ++r) {
    shares[r] = gpu_share(num, size, r);
    if (!writes_in_place[r]) largest_sent = std::max(largest_sent, shares[r].count);
  }
  const Share mine = shares[rank];
  const int batch = generator.batch();
  // Round k gathers image k * batch .. of every share that is sent (none when all ranks write in
  // place).
  const int rounds = (largest_sent + batch - 1) / batch;
  const std::span<float> mine_in_output =
      in_place ? output.floats().subspan(static_cast<std::size_t>(mine.first) * kImageFloats,
                                         static_cast<std::size_t>(mine.count) * kImageFloats)
               : std::span<float>{};

  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  std::vector<float> local_latents;
  const std::span<const float> my_latents =
      scatter_latents(comm, types.latent, shares, latents, local_latents);

  // The counts and places rank 0 receives in each round.
  std::vector<std::vector<int>> round_counts(rounds, std::vector<int>(size)),
      round_firsts(rounds, std::vector<int>(size));
  for (int k = 0; k < rounds; ++k) {
    for (int r = 0; r < size; ++r) {
      round_counts[k][r] =
          writes_in_place[r] ? 0 : std::clamp(shares[r].count - k * batch, 0, batch);
      round_firsts[k][r] = shares[r].first + std::min(k * batch, shares[r].count);
    }
  }
  std::vector<MPI_Request> requests(rounds, MPI_REQUEST_NULL);
  if (in_place) {
    // Rank 0's helper thread completes every round while the GPU works; another rank of its node
    // joins each round with nothing to send.
    for (int k = 0; k < rounds; ++k) {
      if (rank == 0) {
        MPI_Igatherv(MPI_IN_PLACE, 0, types.image, output.floats().data(), round_counts[k].data(),
                     round_firsts[k].data(), types.image, 0, comm, &requests[k]);
      } else {
        MPI_Igatherv(nullptr, 0, types.image, nullptr, nullptr, nullptr, types.image, 0, comm,
                     &requests[k]);
      }
    }
    std::thread helper([&] { MPI_Waitall(rounds, requests.data(), MPI_STATUSES_IGNORE); });
    outcome =
        cudalabs::catch_error([&] { generator.generate(my_latents, mine.count, mine_in_output); });
    helper.join();
  } else {
    // The pipeline thread only announces landed batches; a helper thread, the only one calling MPI
    // meanwhile, joins each round as its images land and keeps the transfers moving (shared-memory
    // transfers advance only while the sender is inside MPI).
    std::vector<float> local_images(static_cast<std::size_t>(mine.count) * kImageFloats);
    std::atomic<int> landed{0};
    std::atomic<bool> generating{true};
    std::thread helper([&] {
      int posted = 0;
      auto post_until = [&](int round_end) {
        for (; posted < round_end; ++posted) {
          const float* from =
              local_images.data() +
              static_cast<std::size_t>(std::min(posted * batch, mine.count)) * kImageFloats;
          MPI_Igatherv(from, round_counts[posted][rank], types.image, nullptr, nullptr, nullptr,
                       types.image, 0, comm, &requests[posted]);
        }
      };
      while (posted < rounds) {
        const bool finished = !generating.load(std::memory_order_acquire);
        // After the pipeline ends (a failure too), every remaining round is joined: rank 0 waits
        // for all.
        post_until(finished ? rounds : landed.load(std::memory_order_acquire));
        int done = 0;
        MPI_Testall(posted, requests.data(), &done, MPI_STATUSES_IGNORE);
      }
      MPI_Waitall(rounds, requests.data(), MPI_STATUSES_IGNORE);
    });
    outcome = cudalabs::catch_error([&] {
      generator.generate(my_latents, mine.count, local_images, [&](int first, int count) {
        landed.store((first + count + batch - 1) / batch, std::memory_order_release);
      });
    });
    generating.store(false, std::memory_order_release);
    helper.join();
  }
  // What the ranks of rank 0's node wrote is visible to rank 0 after this barrier.
  if (in_place) output.sync();
  MPI_Barrier(comm);
  if (rank == 0) output.sync();
  return MPI_Wtime() - start;
}

}  // namespace lab10
