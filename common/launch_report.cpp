#include "common/launch_report.h"

#include "common/cuda_check.h"
#include "common/text_table.h"

#include <ostream>
#include <sstream>

namespace cudalabs {

LaunchReport report_launch(const std::string& variant, const KernelLaunch& launch,
                           const OccupancyLimits& limits) {
  LaunchReport report;
  report.variant = variant;
  report.launch = launch;
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  report.registers_per_thread = attributes.numRegs;
  report.static_shared = attributes.sharedSizeBytes;
  report.local_bytes = attributes.localSizeBytes;
  report.occupancy =
      theoretical_occupancy({launch.threads_per_block(), attributes.numRegs,
                             attributes.sharedSizeBytes + launch.dynamic_shared_bytes},
                            limits);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&report.api_active_blocks, launch.kernel,
                                                           launch.threads_per_block(),
                                                           launch.dynamic_shared_bytes));
  return report;
}

namespace {
std::string dims(const dim3& d) {
  std::ostringstream text;
  text << d.x;
  if (d.y > 1 || d.z > 1) text << 'x' << d.y;
  if (d.z > 1) text << 'x' << d.z;
  return text.str();
}
}  // namespace

void print_launch_table(std::ostream& out, const std::vector<LaunchReport>& reports) {
  TextTable table({{"variant", false},
                   {"grid", true},
                   {"block", true},
                   {"regs", true},
                   {"smem B", true},
                   {"limit SM", true},
                   {"warps", true},
                   {"regs", true},
                   {"smem", true},
                   {"occupancy %", true},
                   {"limited by", false}});
  for (const LaunchReport& r : reports) {
    const OccupancyResult& o = r.occupancy;
    table.add_row({r.variant, dims(r.launch.grid), dims(r.launch.block),
                   std::to_string(r.registers_per_thread),
                   std::to_string(r.static_shared + r.launch.dynamic_shared_bytes),
                   std::to_string(o.block_limit_sm), std::to_string(o.block_limit_warps),
                   std::to_string(o.block_limit_registers), std::to_string(o.block_limit_shared),
                   TextTable::number(100.0 * o.occupancy, 2), o.limiter});
  }
  out << "launch (block limits per SM; theoretical occupancy from common/occupancy)\n";
  table.print(out);
}

}  // namespace cudalabs
