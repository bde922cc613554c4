#include "attention_steps_table.h"

#include "common/cuda_check.h"
#include "common/event_timer.h"
#include "common/text_table.h"

#include <cmath>
#include <iostream>
#include <string>

namespace lab13::steps {

namespace {

using cudalabs::TextTable;

struct KernelFacts {
  int registers = 0;
  int blocks_per_sm = 0;
};

KernelFacts facts_of(const AttentionVariant& v, const AttentionShape& shape) {
  const cudalabs::KernelLaunch launch = v.describe(shape);
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(launch.dynamic_shared_bytes)));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, launch.kernel, static_cast<int>(launch.block.x * launch.block.y * launch.block.z),
      launch.dynamic_shared_bytes));
  return {attributes.numRegs, blocks};
}

double median_of(const std::vector<Row>& rows, const std::string& name) {
  for (const Row& row : rows)
    if (name == row.candidate->variant->name) return cudalabs::median(row.ms);
  return std::nan("");
}

}  // namespace

nlohmann::json print_problem(const std::vector<Row>& rows, const AttentionShape& shape,
                             const lab13_library::SdpaResults& sdpa, nlohmann::json& rechecks) {
  const std::string label = shape.label();
  const double flops = shape.flops();
  const auto sdpa_gflops = [&](const std::string& backend) {
    const auto timing = sdpa.find(backend, label);
    return timing ? timing->gflops : std::nan("");
  };
  const double flash = sdpa_gflops("flash"), best = sdpa_gflops("best");
  TextTable table({{"row", false},
                   {"improves", false},
                   {"ms", true},
                   {"TFLOP/s", true},
                   {"x improved", true},
                   {"x SDPA flash", true},
                   {"x SDPA best", true},
                   {"registers", true},
                   {"blocks/SM", true},
                   {"check", false}});
  for (const std::string& backend : lab13_library::kSdpaBackends) {
    if (const auto timing = sdpa.find(backend, label)) {
      table.add_row({"sdpa_" + backend, "-", TextTable::number(timing->ms, 3),
                     TextTable::number(timing->gflops / 1000.0, 1), "-",
                     TextTable::number(timing->gflops / flash, 2),
                     TextTable::number(timing->gflops / best, 2), "-", "-", "reference"});
    }
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Row& row : rows) {
    const AttentionVariant& v = *row.candidate->variant;
    const double ms = cudalabs::median(row.ms);
    const double gflops = flops / (ms * 1e-3) * 1e-9;
    const double improved = row.candidate->improves.empty()
                                ? std::nan("")
                                : median_of(rows, row.candidate->improves) / ms;
    std::string registers = "-", blocks = "-";
    const std::string name = "lab13_attention_steps/" + std::string(v.name) + "/" + label;
    nlohmann::json record = {{"name", name},
                             {"row", v.name},
                             {"improves", row.candidate->improves},
                             {"problem", label},
                             {"check", row.check}};
    if (!row.ms.empty()) {  // timed
      const KernelFacts facts = facts_of(v, shape);
      registers = std::to_string(facts.registers);
      blocks = std::to_string(facts.blocks_per_sm);
      record.update(
          {{"real_time", ms},
           {"time_unit", "ms"},
           {"gflops", gflops},
           {"vs_improved", std::isnan(improved) ? nlohmann::json() : nlohmann::json(improved)},
           {"vs_sdpa_flash", std::isnan(flash) ? nlohmann::json() : nlohmann::json(gflops / flash)},
           {"vs_sdpa_best", std::isnan(best) ? nlohmann::json() : nlohmann::json(gflops / best)},
           {"registers", facts.registers},
           {"blocks_per_sm", facts.blocks_per_sm},
           {"times_ms", row.ms}});
    }
    table.add_row({v.name, row.candidate->improves.empty() ? "-" : row.candidate->improves,
                   TextTable::number(ms, 3), TextTable::number(gflops / 1000.0, 1),
                   TextTable::number(improved, 2), TextTable::number(gflops / flash, 2),
                   TextTable::number(gflops / best, 2), registers, blocks,
                   row.check.size() > 60 ? row.check.substr(0, 60) + "..." : row.check});
    records.push_back(record);
    if (row.after_timing) {
      rechecks[name] = {{"passed", row.after_timing->passed},
                        {"message", row.after_timing->message}};
    }
  }
  std::cout << "\nattention " << label << " (BF16, " << TextTable::number(flops * 1e-9, 1)
            << " GFLOP; x improved: the row it improves' time over this row's)\n";
  table.print(std::cout);
  if (const auto all = sdpa.skipped.find("all"); all != sdpa.skipped.end()) {
    std::cout << "PyTorch's attention was not timed: " << all->second << "\n";
  } else {
    for (const std::string& backend : lab13_library::kSdpaBackends) {
      if (const auto why = sdpa.skipped.find(backend + "/" + label); why != sdpa.skipped.end())
        std::cout << "sdpa_" << backend << " did not run: " << why->second << "\n";
    }
  }
  for (const Row& row : rows) {
    if (!row.after_timing) continue;
    std::cout << "recheck " << row.candidate->variant->name << "/" << label << ": "
              << row.after_timing->message << (row.after_timing->passed ? "" : " (after timing)")
              << "\n";
  }
  return records;
}

}  // namespace lab13::steps
