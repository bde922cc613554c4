#include "scan_sweep_timing.cuh"

#include "common/cuda_check.h"
#include "common/event_timer.h"
#include "common/text_table.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>

namespace lab12::sweep {

namespace {

struct Row {
  std::string name;
  std::function<void(cudaStream_t)> launch;
  const Candidate* candidate = nullptr;
  std::vector<double> ms;
};

double median_ms(const Row& row) {
  return cudalabs::median(row.ms);
}

}  // namespace

nlohmann::json time_problem(Arrays& arrays, const std::vector<Candidate>& all, int warmups,
                            int repetitions) {
  const Problem& problem = arrays.problem;
  std::vector<Row> rows;
  rows.push_back({"cudaMemcpy",
                  [&](cudaStream_t s) {
                    CUDA_CHECK(cudaMemcpyAsync(arrays.out(), arrays.in(), problem.count * 4,
                                               cudaMemcpyDeviceToDevice, s));
                  },
                  nullptr,
                  {}});
  rows.push_back(
      {"cub", [&](cudaStream_t s) { arrays.scan_with_cub(arrays.out(), s); }, nullptr, {}});
  for (const Candidate& c : all) {
    rows.push_back({c.name,
                    [&arrays, &c](cudaStream_t s) {
                      c.launch(arrays.in(), arrays.out(), arrays.problem.count,
                               arrays.workspace.data(), arrays.workspace.size(), s);
                    },
                    &c,
                    {}});
  }
  // A measurement is `batch` launches back to back between two events (about 2 ms of work), so
  // that the host's enqueueing hides behind the GPU's work.
  const double estimate_ms = cudalabs::median(
      cudalabs::time_each_run_ms([&](cudaStream_t s, int) { rows[1].launch(s); }, warmups, 5));
  const int batch = static_cast<int>(std::clamp(2.0 / estimate_ms, 1.0, 50.0));
  auto measure = [&](Row& row, int warmups) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch; ++i) row.launch(s);
    };
    return cudalabs::time_each_run_ms(runs, warmups, 1).front() / batch;
  };
  for (Row& row : rows) measure(row, warmups);
  for (int round = 0; round < repetitions; ++round) {
    // Each round starts at another row, so that no row always follows the same one.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Row& row = rows[(i + round) % rows.size()];
      row.ms.push_back(measure(row, 0));
    }
  }

  const double bytes = 8.0 * static_cast<double>(problem.count);  // read once, written once
  const double cub_ms = median_ms(rows[1]);
  std::printf(
      "\ninclusive scan of %zu uint32 (%s), medians of %d interleaved rounds, %d launches "
      "each\n",
      problem.count, problem.label().c_str(), repetitions, batch);
  cudalabs::TextTable table({{"row", false},
                             {"ms", true},
                             {"GB/s", true},
                             {"x CUB", true},
                             {"registers", true},
                             {"blocks/SM", true}});
  nlohmann::json records = nlohmann::json::array();
  for (const Row& row : rows) {
    const double ms = median_ms(row);
    const double gbps = bytes / (ms * 1e-3) * 1e-9;
    const double vs_cub = cub_ms / ms;
    nlohmann::json record = {{"name", "lab12_scan_sweep/" + row.name + "/" + problem.label()},
                             {"row", row.name},
                             {"problem", problem.label()},
                             {"count", problem.count},
                             {"real_time", ms},
                             {"time_unit", "ms"},
                             {"gbytes_per_s", gbps},
                             {"vs_cub", vs_cub},
                             {"launches_per_measurement", batch},
                             {"times_ms", row.ms}};
    std::string registers = "-", blocks = "-";
    if (row.candidate != nullptr) {
      const KernelFacts facts = facts_of(*row.candidate);
      registers = std::to_string(facts.registers);
      blocks = std::to_string(facts.blocks_per_sm);
      record["registers"] = facts.registers;
      record["blocks_per_sm"] = facts.blocks_per_sm;
      record["threads"] = row.candidate->tuning.threads;
      record["items_per_thread"] = row.candidate->tuning.items_per_thread;
      record["check"] = "PASS";
    }
    table.add_row({row.name, cudalabs::TextTable::number(ms, 4),
                   cudalabs::TextTable::number(gbps, 0), cudalabs::TextTable::number(vs_cub, 3),
                   registers, blocks});
    records.push_back(record);
  }
  table.print(std::cout);
  return records;
}

}  // namespace lab12::sweep
