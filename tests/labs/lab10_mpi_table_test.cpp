// Lab 10's MPI scaling table (labs/10_multi_gpu_dcgan/mpi_table.h) under mpirun with 3 ranks, each
// GPU replaced by a CPU stand-in that writes the reference generator's images: every cell (3
// images on 1, 2 and 3 ranks) timed on every rank at once, then checked again in the buffers it
// was timed in, with the solution's scatter, shared output window and checkpoint. A rank that
// stops writing after the timing, or fails in a recheck, must fail that cell's recheck on every
// rank and in the record; the others must pass.
//
//   mpirun -np 3 lab10_mpi_table_tests
#include "common/dcgan_check.h"
#include "common/dcgan_model.h"
#include "common/json_record.h"
#include "common/run_protocol.h"
#include "labs/10_multi_gpu_dcgan/distributed_run.h"
#include "labs/10_multi_gpu_dcgan/mpi_table.h"
#include "labs/10_multi_gpu_dcgan/node_output.h"
#include "labs/10_multi_gpu_dcgan/run_flags.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace dcgan = cudalabs::dcgan;
using dcgan::kImageFloats;
using dcgan::kLatent;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// True on every rank when `ok` is true on every rank.
bool everywhere(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

// A rank's GPU on the CPU: the reference generator's images as floats, batch by batch (each image
// computed once per latent vector: the timed runs repeat them). Until `broken` is set it is right;
// then it writes nothing, or with `throws` fails as a lost GPU would.
class ReferenceGenerator : public lab10::RankGenerator {
 public:
  ReferenceGenerator(const dcgan::Weights& weights, int batch) : weights_(weights), batch_(batch) {}
  int batch() const override { return batch_; }
  void generate(std::span<const float> latents, int count, std::span<float> images,
                const Landed& landed) override {
    if (broken && throws) throw std::runtime_error("GPU lost");
    for (int first = 0; first < count; first += batch_) {
      const int in_batch = std::min(batch_, count - first);
      for (int i = first; i < first + in_batch && !broken; ++i) {
        const std::vector<float>& image = image_of(latents.subspan(i * kLatent, kLatent));
        std::copy(image.begin(), image.end(), images.begin() + i * kImageFloats);
      }
      if (landed) landed(first, in_batch);
    }
  }
  void poison() override { ++poisons; }
  /// The latent vectors it has generated images of, each counted once.
  std::size_t distinct_latents() const { return images_.size(); }

  bool broken = false;
  bool throws = false;
  int poisons = 0;

 private:
  const std::vector<float>& image_of(std::span<const float> latent) {
    const std::string key(reinterpret_cast<const char*>(latent.data()), latent.size_bytes());
    std::vector<float>& image = images_[key];
    if (image.empty()) {
      const std::vector<double> reference = dcgan::reference_images(weights_, latent, {0});
      image.assign(reference.begin(), reference.end());
    }
    return image;
  }

  const dcgan::Weights& weights_;
  int batch_;
  std::map<std::string, std::vector<float>> images_;
};

enum class Plant { kNone, kStopsWriting, kThrows };

// What one table gave, on this rank (rank 0's rechecks and record are the table's).
struct TableResult {
  std::vector<std::string> timed;  // the cells' names, in the order timed
  std::map<std::string, cudalabs::Recheck> rechecks;
  std::string printed;               // the recheck block
  cudalabs::CaughtError timing;      // the agreed outcome of the timed runs
  bool passed = false;               // every recheck passed, agreed
  int poisons = 0;                   // this rank's GPU poisoned (once per recheck)
  std::size_t distinct_latents = 0;  // latent vectors this rank generated from
  nlohmann::json record;             // rank 0's, as report_scaling writes it
  std::string table;                 // rank 0's, as report_scaling prints it
};

// A table of 3 images on the first 1, 2 and 3 ranks: timed (one warm-up and one run each), then
// `plant` on rank `planted` (after the timing, before the rechecks), then every cell rechecked.
TableResult run_table(bool shared_gather, Plant plant, int planted) {
  const int rank = world_rank();
  const dcgan::Weights weights = dcgan::default_weights(7);
  const lab10::ScalingTable table{weights, 11,  cudalabs::ComputePrecision::kFp32,
                                  2,       {3}, {1, 2, 3}};
  ReferenceGenerator generator(weights, 2);  // 2 images a batch: two gather rounds for 3 images
  const lab10::ImageTypes types;
  const lab10::NodeOutput output(MPI_COMM_WORLD, 3);  // one machine: every rank is on node 0
  const bool in_place = rank == 0 || shared_gather;
  const std::string flavour = shared_gather ? "mpi" : "mpi-collective";
  lab10::MpiTable cells(table,
                        {generator, types, output, in_place, flavour, "lab10_mpi_table_tests",
                         "rank " + std::to_string(rank)},
                        3);
  cudalabs::TimedSession session(cudalabs::TimingOptions{1, 0.0, 0});
  cells.add_cells(session);
  TableResult result;
  const std::vector<cudalabs::HostMedian> medians = session.time_on_host();
  for (const cudalabs::HostMedian& median : medians) result.timed.push_back(median.name);
  result.timing = cells.timing_outcome();
  if (rank == planted && plant != Plant::kNone) {
    generator.broken = true;
    generator.throws = plant == Plant::kThrows;
  }
  std::ostringstream printed;
  result.rechecks = session.recheck_all(printed);
  result.printed = printed.str();
  result.passed = lab10::agreed_by_rank0(session.rechecks_passed());
  result.poisons = generator.poisons;
  result.distinct_latents = generator.distinct_latents();
  if (rank == 0) {
    lab10::RunFlags flags;
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("lab10_mpi_table_" + std::to_string(::getpid()));
    flags.driver.results_dir = folder.string();
    std::ostringstream table_out;
    lab10::report_scaling(table_out, flags, "lab10_" + flavour, "cpu", {{"seed", "11"}}, medians,
                          result.rechecks);
    result.table = table_out.str();
    std::ifstream written(folder / ("lab10_" + flavour + "_cpu.json"));
    if (written) result.record = nlohmann::json::parse(written);
    std::filesystem::remove_all(folder);
  }
  return result;
}

std::vector<std::string> cell_names(const std::string& flavour) {
  return {"lab10/" + flavour + "/n3x1g", "lab10/" + flavour + "/n3x2g",
          "lab10/" + flavour + "/n3x3g"};
}

class MpiTable : public ::testing::TestWithParam<bool> {};  // true: --gather shared

TEST_P(MpiTable, EveryCellIsTimedAndCheckedAgainOnTheRanksItRanOn) {
  const bool shared = GetParam();
  const std::string flavour = shared ? "mpi" : "mpi-collective";
  const TableResult result = run_table(shared, Plant::kNone, -1);
  const int rank = world_rank();
  // Rank r is in the cells of more than r ranks: its GPU poisoned before each of their rechecks.
  EXPECT_TRUE(everywhere(result.timing.code == cudalabs::kExitOk && result.passed &&
                         result.poisons == 3 - rank))
      << "rank " << rank << ": timing " << result.timing.code << ", passed " << result.passed
      << ", poisons " << result.poisons;
  if (rank != 0) return;
  // Rank 0 ran every cell alone too: the 3 timed latent vectors, and 3 fresh ones per recheck.
  EXPECT_EQ(result.distinct_latents, 3u + 3u * 3u);
  EXPECT_EQ(result.timed, cell_names(flavour));
  ASSERT_EQ(result.rechecks.size(), 3u) << result.printed;
  for (const std::string& name : cell_names(flavour)) {
    EXPECT_TRUE(result.rechecks.at(name).passed)
        << name << ": " << result.rechecks.at(name).message;
    EXPECT_NE(result.rechecks.at(name).message.find("identical to one GPU's run"),
              std::string::npos)
        << result.rechecks.at(name).message;
    EXPECT_EQ(result.record["rechecks"][name]["passed"], true) << result.record.dump();
  }
  EXPECT_EQ(result.printed.find("(after timing)"), std::string::npos) << result.printed;
  EXPECT_EQ(result.table.find("FAIL"), std::string::npos) << result.table;
}

TEST_P(MpiTable, ARankThatStopsWritingAfterTheTimingFailsItsCellsRechecks) {
  const bool shared = GetParam();
  const std::string flavour = shared ? "mpi" : "mpi-collective";
  const TableResult result = run_table(shared, Plant::kStopsWriting, 1);
  const int rank = world_rank();
  // Right while timed, wrong where it was timed: the timing saw nothing, every rank sees the fail.
  EXPECT_TRUE(everywhere(result.timing.code == cudalabs::kExitOk && !result.passed))
      << "rank " << rank << ": timing " << result.timing.code << ", passed " << result.passed;
  if (rank != 0) return;
  const std::vector<std::string> names = cell_names(flavour);
  ASSERT_EQ(result.rechecks.size(), 3u) << result.printed;
  EXPECT_TRUE(result.rechecks.at(names[0]).passed) << result.rechecks.at(names[0]).message;
  for (const std::string& name : {names[1], names[2]}) {  // the cells rank 1 is in
    EXPECT_FALSE(result.rechecks.at(name).passed) << name;
    EXPECT_NE(result.printed.find(name + ": fresh latents, images poisoned: "), std::string::npos)
        << result.printed;
    EXPECT_EQ(result.record["rechecks"][name]["passed"], false) << result.record.dump();
  }
  EXPECT_NE(result.printed.find("FAIL"), std::string::npos) << result.printed;
  EXPECT_NE(result.printed.find("(after timing)"), std::string::npos) << result.printed;
  EXPECT_NE(result.table.find("check: FAIL after timing: " + names[1] + ", " + names[2]),
            std::string::npos)
      << result.table;
}

TEST_P(MpiTable, ARankThatFailsInARecheckFailsItWithoutHangingTheOthers) {
  const bool shared = GetParam();
  const std::string flavour = shared ? "mpi" : "mpi-collective";
  const TableResult result = run_table(shared, Plant::kThrows, 2);
  EXPECT_TRUE(everywhere(!result.passed));
  if (world_rank() != 0) return;
  const std::vector<std::string> names = cell_names(flavour);
  EXPECT_TRUE(result.rechecks.at(names[0]).passed) << result.rechecks.at(names[0]).message;
  EXPECT_TRUE(result.rechecks.at(names[1]).passed) << result.rechecks.at(names[1]).message;
  EXPECT_FALSE(result.rechecks.at(names[2]).passed);
  EXPECT_EQ(result.rechecks.at(names[2]).message, "a rank failed in the run (its line on stderr)");
}

INSTANTIATE_TEST_SUITE_P(Gathers, MpiTable, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Shared" : "Collective");
                         });

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  // Rank 0 speaks for the run: what every rank sees is agreed (everywhere) before it is asserted,
  // the table's rechecks and record are rank 0's.
  if (world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
  }
  const int result = provided < MPI_THREAD_SERIALIZED ? 1 : RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
