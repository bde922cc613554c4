// Lab 00 driver (the protocol: common/lab_driver.h): measures the two ceilings (memory bandwidth
// with the copy kernel, FP32 rate with the FMA kernel), next to cudaMemcpy and cuBLAS measured in
// the same run, checks both kernels again in their timed buffers, and prints the ridge point.
#include "checks.h"
#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_arena.h"
#include "common/lab_driver.h"
#include "common/text_table.h"
#include "lab.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace {

using cudalabs::TextTable;
using lab00::Check;
using lab00::Verdict;

struct Options {
  int copy_mib = 1024;
  int fma_iterations = 4096;
  int fma_waves = 4;
  int gemm_size = 8192;
};

void register_flags(CLI::App& app, Options& options) {
  cudalabs::add_integer_flag(
      app, "--copy-mib", options.copy_mib, 1, 1 << 20,
      "MiB copied per run (refused if twice that does not fit in device memory)");
  cudalabs::add_integer_flag(app, "--fma-iterations", options.fma_iterations, 1, 1 << 24,
                             "FMA steps per chain");
  cudalabs::add_integer_flag(app, "--fma-waves", options.fma_waves, 1, 1024,
                             "FMA threads = waves x SMs x max resident threads per SM");
  cudalabs::add_integer_flag(app, "--gemm-size", options.gemm_size, 256, 16384,
                             "M = N = K of the cuBLAS SGEMM shown as a real kernel's rate");
}

// The sizes one run uses, from the flags and the device, and the benchmarks' names.
struct Sizes {
  Sizes(const Options& options, const cudalabs::DeviceInfo& device)
      : copy_count(static_cast<std::size_t>(options.copy_mib) << 18),  // floats in copy_mib MiB
        fma_threads(static_cast<long long>(options.fma_waves) * device.sm_count *
                    device.max_threads_per_sm),
        gemm{options.gemm_size, options.gemm_size, options.gemm_size} {}
  std::size_t copy_count;
  long long fma_threads;
  cudalabs::GemmShape gemm;
  std::string copy_problem() const { return std::to_string(copy_count >> 18) + "MiB"; }
};

// The device bytes of a run: two copy buffers, cuBLAS's three matrices, one float per FMA thread.
std::size_t device_bytes(long long copy_mib, long long gemm_size, long long fma_threads) {
  return (2 * (static_cast<std::size_t>(copy_mib) << 18) +
          3 * static_cast<std::size_t>(gemm_size) * static_cast<std::size_t>(gemm_size) +
          static_cast<std::size_t>(fma_threads)) *
         sizeof(float);
}

struct Names {
  explicit Names(const Sizes& sizes, int fma_iterations)
      : memcpy("reference/cudaMemcpy/" + sizes.copy_problem()),
        copy("lab00/copy/" + sizes.copy_problem()),
        fma("lab00/fma/" + std::to_string(sizes.fma_threads) + "x" +
            std::to_string(fma_iterations)),
        cublas("cublas/" + sizes.gemm.label()) {}
  std::string memcpy, copy, fma, cublas;
};

// Both kernels checked twice (the timed size and an odd one); the verdict of each kernel.
struct Verdicts {
  Verdict copy = Verdict::kFail, fma = Verdict::kFail;
  bool all_passed() const { return copy == Verdict::kPass && fma == Verdict::kPass; }
};

Verdict combine(const Check& a, const Check& b) {
  if (a.verdict == Verdict::kNotImplemented && b.verdict == Verdict::kNotImplemented)
    return Verdict::kNotImplemented;
  if (a.verdict == Verdict::kPass && b.verdict == Verdict::kPass) return Verdict::kPass;
  return Verdict::kFail;
}

Verdicts check_kernels(const cudalabs::LabDriver& driver, const Options& options,
                       const Sizes& sizes) {
  const Check copy_aligned = lab00::check_copy(sizes.copy_count, 0, 0, driver.seed_for("copy"));
  const Check copy_odd = lab00::check_copy(1000003, 1, 3, driver.seed_for("copy odd"));
  const Check fma_small = lab00::check_fma(3 * lab00::kThreadsPerBlock + 17, 1000, 1 << 20);
  const Check fma_timed = lab00::check_fma(sizes.fma_threads, options.fma_iterations, 2048);
  for (const Check* check : {&copy_aligned, &copy_odd, &fma_small, &fma_timed})
    driver.out() << "  " << check->message << "\n";
  return {combine(copy_aligned, copy_odd), combine(fma_small, fma_timed)};
}

cudalabs::Recheck recheck_of(const Check& check) {
  return {check.verdict == Verdict::kPass, check.message};
}

// cudaMemcpy, the passing kernels (each checked again in its timed buffers) and cuBLAS, in their
// timed buffers.
void add_timed_runs(cudalabs::LabDriver& driver, const Options& options, const Sizes& sizes,
                    const Verdicts& verdicts, const Names& names, cudalabs::DeviceArena& arena,
                    cudalabs::CublasHandle& cublas) {
  const std::size_t count = sizes.copy_count;
  const double copy_bytes = 2.0 * static_cast<double>(count) * sizeof(float);  // read + written
  std::vector<float> host(count);
  cudalabs::fill_uniform(host, driver.seed_for("copy timing"));
  const float* src = arena.upload<float>(host);
  float* dst = arena.allocate<float>(count);
  float* fma_out = arena.allocate<float>(static_cast<std::size_t>(sizes.fma_threads));
  driver.add_reference(names.memcpy, 0.0, copy_bytes, [=](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  });
  if (verdicts.copy == Verdict::kPass) {
    const std::uint64_t seed = driver.seed_for("recheck " + names.copy);
    driver.add_timed({names.copy,
                      [=](cudaStream_t stream) { lab00::launch_copy(src, dst, count, stream); },
                      0.0,
                      copy_bytes,
                      {},
                      [=] {
                        return recheck_of(lab00::check_copy_in(
                            src, dst, count, seed, "timed buffers refilled, copied again"));
                      }});
  }
  if (verdicts.fma == Verdict::kPass) {
    const long long threads = sizes.fma_threads;
    const int iterations = options.fma_iterations;
    driver.add_timed(
        {names.fma,
         [=](cudaStream_t stream) { lab00::launch_fma(fma_out, threads, iterations, stream); },
         lab00::fma_flops(threads, iterations),
         0.0,
         {},
         [=] {
           return recheck_of(
               lab00::check_fma_in(fma_out, threads, iterations, 2048, "timed output poisoned"));
         }});
  }
  const cudalabs::GemmShape gemm = sizes.gemm;
  const std::size_t elements = static_cast<std::size_t>(gemm.m) * gemm.n;
  std::vector<float> host_a(elements), host_b(elements);
  cudalabs::fill_uniform(host_a, driver.seed_for("gemm A"));
  cudalabs::fill_uniform(host_b, driver.seed_for("gemm B"));
  const float *a = arena.upload<float>(host_a), *b = arena.upload<float>(host_b);
  float* c = arena.allocate<float>(elements);
  driver.add_reference(names.cublas, gemm.flops(), 0.0, [=, &cublas](cudaStream_t stream) {
    cudalabs::cublas_gemm_row_major(
        cublas, {gemm.m, gemm.n, gemm.k, 1.0f, a, gemm.k, b, gemm.n, 0.0f, c, gemm.n}, stream);
  });
}

// The table, the two measured ceilings and the ridge point.
void print_roofline(const cudalabs::LabDriver& driver, const Sizes& sizes, const Verdicts& verdicts,
                    const Names& names,
                    const std::map<std::string, cudalabs::BenchmarkMedian>& medians) {
  const auto median = [&](const std::string& name) { return cudalabs::median_of(medians, name); };
  const auto ms = [&](const std::string& name) {
    return TextTable::number(cudalabs::milliseconds_of(median(name)), 3);
  };
  const double memcpy_bw = cudalabs::counter_of(median(names.memcpy), "gbytes_per_s");
  const double copy_bw = cudalabs::counter_of(median(names.copy), "gbytes_per_s");
  const double fma_rate = cudalabs::counter_of(median(names.fma), "gflops");
  const double cublas_rate = cudalabs::counter_of(median(names.cublas), "gflops");
  const double bandwidth_ceiling = std::max(std::isnan(copy_bw) ? 0.0 : copy_bw, memcpy_bw);
  const double compute_ceiling = std::max(std::isnan(fma_rate) ? 0.0 : fma_rate, cublas_rate);
  const cudalabs::DeviceInfo& device = driver.device();
  const int lanes = cudalabs::fp32_lanes_per_sm(device.major, device.minor);
  const double clock_peak = 2.0 * lanes * device.sm_count * device.sm_clock_khz * 1e-6;  // GFLOP/s

  TextTable table(
      {{"kernel", false}, {"ms", true}, {"rate", true}, {"% of ceiling", true}, {"check", false}});
  auto percent = [](double value, double ceiling) {
    return TextTable::number(100.0 * value / ceiling, 1);
  };
  table.add_row({"cudaMemcpy D2D", ms(names.memcpy), TextTable::number(memcpy_bw, 0) + " GB/s",
                 percent(memcpy_bw, bandwidth_ceiling), "reference"});
  table.add_row({"copy (lab00)", ms(names.copy), TextTable::number(copy_bw, 0) + " GB/s",
                 percent(copy_bw, bandwidth_ceiling),
                 driver.check_cell(lab00::verdict_text(verdicts.copy), names.copy)});
  table.add_row({"fma (lab00)", ms(names.fma), TextTable::number(fma_rate, 0) + " GFLOP/s",
                 percent(fma_rate, compute_ceiling),
                 driver.check_cell(lab00::verdict_text(verdicts.fma), names.fma)});
  table.add_row({"cuBLAS SGEMM " + sizes.gemm.label(), ms(names.cublas),
                 TextTable::number(cublas_rate, 0) + " GFLOP/s",
                 percent(cublas_rate, compute_ceiling), "reference"});
  std::ostream& out = driver.out();
  out << "\n";
  table.print(out);
  out << "\nmeasured ceilings: memory " << TextTable::number(bandwidth_ceiling, 0)
      << " GB/s (bytes read + written), "
      << "FP32 " << TextTable::number(compute_ceiling, 0) << " GFLOP/s\n"
      << "ridge point: " << TextTable::number(compute_ceiling / bandwidth_ceiling, 1)
      << " FLOP/byte (a kernel doing fewer FLOPs per byte of DRAM traffic is memory-bound)\n";
  if (lanes > 0) {
    out << "for comparison, SMs x FP32 lanes x 2 x max clock = " << device.sm_count << " x "
        << lanes << " x 2 x " << device.sm_clock_khz / 1000
        << " MHz = " << TextTable::number(clock_peak, 0) << " GFLOP/s; the FMA kernel reached "
        << TextTable::number(100.0 * fma_rate / clock_peak, 1) << " % of it\n";
  }
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Lab 00: the roofline. Measures memory bandwidth (copy kernel) and FP32 rate (FMA kernel), "
      "next to cudaMemcpy and cuBLAS, and prints the ridge point."};
  register_flags(app, options);
  cudalabs::DriverFlags flags;  // two fixed kernels: no choice, no list, no seed, no tag
  flags.checked = "kernel";
  flags.variant_flag = flags.list_flag = flags.seed_flag = flags.warmups_flag =
      flags.results_tag_flag = false;
  cudalabs::LabDriver driver({"lab00", "the roofline"}, app, flags);
  if (!driver.parse(argc, argv)) return cudalabs::kExitOk;
  const cudalabs::DeviceInfo& device = driver.open_device();
  // Defaults that do not fit this GPU halve until they do (the copy first, then the GEMM); sizes
  // given by flags are refused instead.
  const long long fma_threads = Sizes(options, device).fma_threads;
  driver.shrink_default(
      {"--copy-mib"}, "--copy-mib", options.copy_mib, 64,
      [&](long long mib) { return device_bytes(mib, options.gemm_size, fma_threads); },
      "with the rest");
  driver.shrink_default(
      {"--gemm-size"}, "--gemm-size", options.gemm_size, 1024,
      [&](long long size) { return device_bytes(options.copy_mib, size, fma_threads); },
      "with the rest");
  cudalabs::require_device_memory(device_bytes(options.copy_mib, options.gemm_size, fma_threads),
                                  "--copy-mib " + std::to_string(options.copy_mib) +
                                      " --gemm-size " + std::to_string(options.gemm_size));
  const Sizes sizes(options, device);
  driver.begin(/*with_clock=*/true);  // the build report: JIT-compiled from older PTX?
  const Verdicts verdicts = check_kernels(driver, options, sizes);
  if (driver.verify_only()) return driver.exit_code(verdicts.all_passed());
  const Names names(sizes, options.fma_iterations);
  cudalabs::DeviceArena arena;
  cudalabs::CublasHandle cublas;
  add_timed_runs(driver, options, sizes, verdicts, names, arena, cublas);
  const auto medians = driver.time_and_recheck();
  print_roofline(driver, sizes, verdicts, names, medians);
  return driver.exit_code(verdicts.all_passed());
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
