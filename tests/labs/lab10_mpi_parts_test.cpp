// Lab 10's MPI parts, each on its own, under mpirun (no GPU needed): the scatter of the latent
// vectors, rank 0's shared output window and the ranks' checkpoint. Every scenario runs on the
// whole of MPI_COMM_WORLD and again on sub-communicators of 2 and 1 ranks, so that one mpirun of 3
// ranks covers 1, 2 and 3. Every check is agreed over the communicator before it is asserted, so
// all ranks pass or fail (and skip) together and none is left waiting in a collective.
//
//   mpirun -np 3 lab10_mpi_parts_test_<build> [--gtest_filter=Scatter.*]
#include "common/cli.h"
#include "common/dcgan_model.h"
#include "labs/10_multi_gpu_dcgan/checkpoint.h"
#include "labs/10_multi_gpu_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/not_implemented.h"
#include "labs/10_multi_gpu_dcgan/scatter.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cudalabs::dcgan::kImageFloats;
using cudalabs::dcgan::kLatent;

#if defined(CUDALABS_BUILD_STUDENT)
constexpr bool kStudentBuild = true;
#else
constexpr bool kStudentBuild = false;
#endif

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

// True on every rank when `ok` is true on every rank of `comm`.
bool everywhere(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
  return all != 0;
}

// The same, and when some rank is not ok, `problem` becomes the lowest such rank's on every rank
// (rank 0 prints the test's messages).
bool everywhere(MPI_Comm comm, bool ok, std::string& problem) {
  const int size = size_of(comm);
  int mine = ok ? size : rank_of(comm), first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return true;
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  problem.resize(length);
  MPI_Bcast(problem.data(), length, MPI_CHAR, first, comm);
  return false;
}

// The communicators each scenario runs on: the world, then pairs (ranks 0-1, 2-3, ...), then each
// rank alone.
std::vector<MPI_Comm> communicators() {
  std::vector<MPI_Comm> comms{MPI_COMM_WORLD};
  const int rank = rank_of(MPI_COMM_WORLD);
  for (int group : {rank / 2, rank}) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, group, rank, &comm);
    comms.push_back(comm);
  }
  return comms;
}

void free_communicators(std::vector<MPI_Comm>& comms) {
  for (MPI_Comm& comm : comms)
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
}

// The split the parts are tested with, written here rather than taken from the build's gpu_share,
// so that a skeleton's empty shares cannot make a part pass: the first num % parts parts get one
// more.
lab10::Share share_of(int num, int parts, int part) {
  const int small = num / parts, bigger = num % parts;  // parts 0 .. bigger - 1 get small + 1
  if (part < bigger) return {part * (small + 1), small + 1};
  return {bigger * (small + 1) + (part - bigger) * small, small};
}

// Runs `part` on every rank; true when the part is not written yet (it threw NotImplemented, which
// a skeleton does on every rank at once). The solution build must never get there.
bool not_implemented(const std::function<void()>& part, std::string& what) {
  try {
    part();
  } catch (const lab10::NotImplemented& missing) {
    what = missing.what();
    return true;
  }
  return false;
}

#define SKIP_IF_NOT_WRITTEN(part)                                     \
  do {                                                                \
    std::string what;                                                 \
    if (not_implemented(part, what)) {                                \
      if (kStudentBuild) GTEST_SKIP() << what;                        \
      FAIL() << "the solution's part threw NotImplemented: " << what; \
    }                                                                 \
  } while (false)

// ---- Scatter ----

// Latent vector i, element e: a value that names both, exactly representable.
float latent_value(int i, int e) {
  return static_cast<float>(i * 1000 + e) + 0.5f;
}

struct LatentType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  LatentType() {
    MPI_Type_contiguous(static_cast<int>(kLatent), MPI_FLOAT, &type);
    MPI_Type_commit(&type);
  }
  ~LatentType() { MPI_Type_free(&type); }
};

// Scatters `num` latent vectors over `comm`; true on every rank when each got exactly its share,
// rank 0's as a view into its own array.
bool scatter_gives_every_rank_its_share(MPI_Comm comm, int num, std::string& problem) {
  const LatentType latent;
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<lab10::Share> shares(size);
  for (int r = 0; r < size; ++r) shares[r] = share_of(num, size, r);
  std::vector<float> all;
  if (rank == 0) {
    all.resize(static_cast<std::size_t>(num) * kLatent);
    for (int i = 0; i < num; ++i)
      for (int e = 0; e < static_cast<int>(kLatent); ++e) all[i * kLatent + e] = latent_value(i, e);
  }
  std::vector<float> storage{-1.0f};  // a leftover the scatter must replace
  const std::span<const float> mine =
      lab10::scatter_latents(comm, latent.type, shares, all, storage);
  const lab10::Share share = shares[rank];
  bool ok = mine.size() == static_cast<std::size_t>(share.count) * kLatent;
  if (!ok)
    problem = "rank " + std::to_string(rank) + " got " + std::to_string(mine.size()) +
              " floats for a share of " + std::to_string(share.count) + " vectors";
  for (std::size_t f = 0; ok && f < mine.size(); ++f) {
    const int i = share.first + static_cast<int>(f / kLatent), e = static_cast<int>(f % kLatent);
    if (mine[f] != latent_value(i, e)) {
      ok = false;
      problem = "rank " + std::to_string(rank) + ": float " + std::to_string(f) +
                " of its share is " + std::to_string(mine[f]) + ", not vector " +
                std::to_string(i) + "'s element " + std::to_string(e);
    }
  }
  if (ok && rank == 0 && share.count > 0 && mine.data() != all.data() + share.first * kLatent) {
    ok = false;
    problem = "rank 0's share was copied: it should be a view of its part of `all` (MPI_IN_PLACE)";
  }
  return everywhere(comm, ok, problem);
}

TEST(Scatter, EveryRankGetsItsShare) {
  SKIP_IF_NOT_WRITTEN([&] {
    std::string ignored;
    scatter_gives_every_rank_its_share(MPI_COMM_WORLD, 1, ignored);
  });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    for (int num : {0, 1, 2, 7, 64, 1001}) {
      std::string problem;
      EXPECT_TRUE(scatter_gives_every_rank_its_share(comm, num, problem))
          << num << " vectors over " << size_of(comm) << " rank(s): " << problem;
    }
  }
  free_communicators(comms);
}

// ---- NodeOutput ----

// Each rank writes its share of `images` images into the window; rank 0 reads them all.
bool ranks_write_into_rank0s_output(MPI_Comm comm, int images, std::string& problem) {
  const int rank = rank_of(comm), size = size_of(comm);
  const lab10::NodeOutput output(comm, static_cast<std::size_t>(images));
  bool ok = output.floats().size() == static_cast<std::size_t>(images) * kImageFloats;
  if (!ok)
    problem = "rank " + std::to_string(rank) + " sees " + std::to_string(output.floats().size()) +
              " floats for " + std::to_string(images) + " images";
  if (!everywhere(comm, ok, problem)) return false;
  const lab10::Share mine = share_of(images, size, rank);
  for (std::size_t f = mine.first * kImageFloats; f < (mine.first + mine.count) * kImageFloats; ++f)
    output.floats()[f] = static_cast<float>(rank * 7 + 1);
  output.sync();  // the writer's stores, then the barrier that tells rank 0
  MPI_Barrier(comm);
  output.sync();
  if (rank == 0) {
    for (int r = 0; r < size && ok; ++r) {
      const lab10::Share share = share_of(images, size, r);
      for (std::size_t f = share.first * kImageFloats;
           f < (share.first + share.count) * kImageFloats; ++f) {
        if (output.floats()[f] != static_cast<float>(r * 7 + 1)) {
          ok = false;
          problem = "rank 0 reads " + std::to_string(output.floats()[f]) + " at float " +
                    std::to_string(f) + ", which rank " + std::to_string(r) + " wrote as " +
                    std::to_string(r * 7 + 1);
          break;
        }
      }
    }
  }
  MPI_Barrier(comm);  // nobody frees the window while rank 0 reads
  return everywhere(comm, ok, problem);
}

TEST(NodeOutput, RanksOfTheNodeWriteIntoRank0sImages) {
  SKIP_IF_NOT_WRITTEN([&] { const lab10::NodeOutput output(MPI_COMM_WORLD, 1); });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    for (int images : {1, 3, 10}) {
      std::string problem;
      EXPECT_TRUE(ranks_write_into_rank0s_output(comm, images, problem))
          << images << " images over " << size_of(comm) << " rank(s): " << problem;
    }
  }
  free_communicators(comms);
}

TEST(NodeOutput, ARankOfAnotherNodeGetsNoWindow) {
  SKIP_IF_NOT_WRITTEN([&] { const lab10::NodeOutput output(MPI_COMM_WORLD, 1); });
  const lab10::NodeOutput output(MPI_COMM_NULL, 5);
  EXPECT_TRUE(everywhere(MPI_COMM_WORLD, output.floats().empty()));
  output.sync();  // harmless without a window
}

// ---- Checkpoint ----

struct Agreed {
  cudalabs::CaughtError outcome;
  std::string printed;  // what rank 0 wrote to std::cerr
};

// Every rank of `comm` brings its own outcome (outcome_of(rank)) to the checkpoint.
Agreed agree(MPI_Comm comm, const std::function<cudalabs::CaughtError(int)>& outcome_of) {
  const int rank = rank_of(comm);
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  Agreed agreed;
  try {
    agreed.outcome =
        lab10::checkpoint(comm, outcome_of(rank), "prog", "rank " + std::to_string(rank));
  } catch (...) {
    std::cerr.rdbuf(saved);
    throw;
  }
  std::cerr.rdbuf(saved);
  agreed.printed = captured.str();
  return agreed;
}

TEST(Checkpoint, AllFineGoesOnSilently) {
  SKIP_IF_NOT_WRITTEN([&] { agree(MPI_COMM_WORLD, [](int) { return cudalabs::CaughtError{}; }); });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    const Agreed agreed = agree(comm, [](int) { return cudalabs::CaughtError{}; });
    EXPECT_TRUE(everywhere(comm, agreed.outcome.code == cudalabs::kExitOk && !agreed.outcome.help &&
                                     agreed.printed.empty()))
        << size_of(comm) << " rank(s): code " << agreed.outcome.code << ", printed '"
        << agreed.printed << "'";
  }
  free_communicators(comms);
}

TEST(Checkpoint, OneFailingRankStopsEveryRankWithOneLine) {
  SKIP_IF_NOT_WRITTEN([&] { agree(MPI_COMM_WORLD, [](int) { return cudalabs::CaughtError{}; }); });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    const int size = size_of(comm), last = size - 1;
    const Agreed agreed = agree(comm, [&](int rank) {
      return rank == last
                 ? cudalabs::CaughtError{cudalabs::kExitBadInput, "--num: invalid value '0'"}
                 : cudalabs::CaughtError{};
    });
    const std::string expected =
        "prog: rank " + std::to_string(last) + ": --num: invalid value '0'\n";
    const bool printed_right =
        rank_of(comm) == 0 ? agreed.printed == expected : agreed.printed.empty();
    EXPECT_TRUE(everywhere(comm, agreed.outcome.code == cudalabs::kExitBadInput &&
                                     !agreed.outcome.help && printed_right))
        << size << " rank(s), rank " << last << " failing: code " << agreed.outcome.code
        << ", printed '" << agreed.printed << "' (rank 0 should print '" << expected
        << "', the others nothing)";
  }
  free_communicators(comms);
}

TEST(Checkpoint, SeveralFailuresNameTheLowestRankAndTheWorstCode) {
  SKIP_IF_NOT_WRITTEN([&] { agree(MPI_COMM_WORLD, [](int) { return cudalabs::CaughtError{}; }); });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    const int size = size_of(comm);
    // Rank 0 fails with 1; every other rank with 2.
    const Agreed agreed = agree(comm, [](int rank) {
      return rank == 0 ? cudalabs::CaughtError{cudalabs::kExitFailed, "no GPU"}
                       : cudalabs::CaughtError{cudalabs::kExitBadInput, "bad flag"};
    });
    const int worst = size > 1 ? cudalabs::kExitBadInput : cudalabs::kExitFailed;
    const std::string expected =
        "prog: rank 0: no GPU" +
        (size > 1 ? " (" + std::to_string(size) + " of " + std::to_string(size) + " ranks failed)"
                  : std::string()) +
        "\n";
    const bool printed_right =
        rank_of(comm) == 0 ? agreed.printed == expected : agreed.printed.empty();
    EXPECT_TRUE(everywhere(comm, agreed.outcome.code == worst && printed_right))
        << size << " rank(s): code " << agreed.outcome.code << " (expected " << worst
        << "), printed '" << agreed.printed << "' (rank 0 should print '" << expected << "')";
  }
  free_communicators(comms);
}

TEST(Checkpoint, HelpStopsEveryRankQuietly) {
  SKIP_IF_NOT_WRITTEN([&] { agree(MPI_COMM_WORLD, [](int) { return cudalabs::CaughtError{}; }); });
  std::vector<MPI_Comm> comms = communicators();
  for (MPI_Comm comm : comms) {
    const Agreed agreed = agree(comm, [](int rank) {
      return rank == 0 ? cudalabs::CaughtError{cudalabs::kExitOk, "", true}
                       : cudalabs::CaughtError{};
    });
    EXPECT_TRUE(everywhere(comm, agreed.outcome.help && agreed.outcome.code == cudalabs::kExitOk &&
                                     agreed.printed.empty()))
        << size_of(comm) << " rank(s): help " << agreed.outcome.help << ", code "
        << agreed.outcome.code << ", printed '" << agreed.printed << "'";
  }
  free_communicators(comms);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // Rank 0 speaks for the run; the others' results are the same by construction (every check is
  // agreed before it is asserted).
  if (rank_of(MPI_COMM_WORLD) != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
  }
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
