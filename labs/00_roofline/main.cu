// Lab 00 driver: measures the two ceilings (memory bandwidth with the copy kernel, FP32 rate with
// the FMA kernel), next to cudaMemcpy and cuBLAS measured in the same run, and prints the ridge
// point.
#include "checks.h"
#include "common/benchmark_support.h"
#include "common/build_report.h"
#include "common/cli.h"
#include "common/cublas_gemm.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "common/text_table.h"
#include "lab.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace {

using cudalabs::BenchmarkMedian;
using cudalabs::DeviceBuffer;
using cudalabs::TextTable;
using lab00::Check;
using lab00::Verdict;

struct Options {
  int copy_mib = 1024;
  int fma_iterations = 4096;
  int fma_waves = 4;
  int gemm_size = 8192;
  cudalabs::TimingOptions timing;
  bool verify_only = false;
  std::string results_dir;
};

double counter(const std::map<std::string, BenchmarkMedian>& medians, const std::string& name,
               const char* key) {
  const auto it = medians.find(name);
  if (it == medians.end()) return std::nan("");
  const auto c = it->second.counters.find(key);
  return c == it->second.counters.end() ? std::nan("") : c->second;
}

double milliseconds(const std::map<std::string, BenchmarkMedian>& medians,
                    const std::string& name) {
  const auto it = medians.find(name);
  return it == medians.end() ? std::nan("") : it->second.real_time_ms;
}

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
  cudalabs::add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                             "Timed repetitions");
  cudalabs::add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                            "Minimum seconds per repetition");
  app.add_flag("--verify-only", options.verify_only, "Check both kernels, time nothing");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/lab00_<device>.json")
      ->type_name("DIR");
}

// The sizes one run uses, from the flags and the device.
struct Sizes {
  std::size_t copy_count = 0;  // floats copied
  long long fma_threads = 0;
  std::size_t gemm_elements = 0;
};

// The device bytes of a run: two copy buffers, cuBLAS's three matrices, one float per FMA thread.
std::size_t device_bytes(long long copy_mib, long long gemm_size, long long fma_threads) {
  return (2 * (static_cast<std::size_t>(copy_mib) << 18) +
          3 * static_cast<std::size_t>(gemm_size) * static_cast<std::size_t>(gemm_size) +
          static_cast<std::size_t>(fma_threads)) *
         sizeof(float);
}

// Defaults that do not fit this GPU halve until they do (the copy first, then the GEMM), one line
// each; sizes given by flags are refused by sizes_for instead.
void shrink_defaults_to_fit(const CLI::App& app, Options& options,
                            const cudalabs::DeviceInfo& device, std::ostream& out) {
  const long long fma_threads =
      static_cast<long long>(options.fma_waves) * device.sm_count * device.max_threads_per_sm;
  const cudalabs::DeviceMemory memory = cudalabs::device_memory();
  const auto shrink = [&](int& size, long long smallest, const std::string& flag,
                          const std::function<std::size_t(long long)>& bytes) {
    const long long fitting = cudalabs::halve_until_fits(size, smallest, memory.free_bytes, bytes);
    if (fitting == size) return;
    out << "size: the default " << flag << " " << size << " needs " << (bytes(size) >> 20)
        << " MiB with the rest, more than this GPU can spare (" << (memory.free_bytes >> 20)
        << " MiB free of " << (memory.total_bytes >> 20) << " MiB); running " << flag << " "
        << fitting << " (" << flag << " chooses)\n";
    size = static_cast<int>(fitting);
  };
  if (app.count("--copy-mib") == 0)
    shrink(options.copy_mib, 64, "--copy-mib",
           [&](long long mib) { return device_bytes(mib, options.gemm_size, fma_threads); });
  if (app.count("--gemm-size") == 0)
    shrink(options.gemm_size, 1024, "--gemm-size",
           [&](long long size) { return device_bytes(options.copy_mib, size, fma_threads); });
}

Sizes sizes_for(const Options& options, const cudalabs::DeviceInfo& device) {
  Sizes sizes;
  sizes.copy_count = static_cast<std::size_t>(options.copy_mib) << 18;  // floats in copy_mib MiB
  sizes.fma_threads =
      static_cast<long long>(options.fma_waves) * device.sm_count * device.max_threads_per_sm;
  sizes.gemm_elements = static_cast<std::size_t>(options.gemm_size) * options.gemm_size;
  cudalabs::require_device_memory(
      device_bytes(options.copy_mib, options.gemm_size, sizes.fma_threads),
      "--copy-mib " + std::to_string(options.copy_mib) + " --gemm-size " +
          std::to_string(options.gemm_size));
  return sizes;
}

// Both kernels checked twice (the timed size and an odd one); the verdict of each kernel.
struct Verdicts {
  Verdict copy = Verdict::kFail;
  Verdict fma = Verdict::kFail;
  bool all_passed() const { return copy == Verdict::kPass && fma == Verdict::kPass; }
};

Verdicts check_kernels(std::ostream& out, const Options& options, const Sizes& sizes,
                       std::uint64_t seed) {
  const Check copy_aligned =
      lab00::check_copy(sizes.copy_count, 0, 0, cudalabs::derive_seed(seed, "copy"));
  const Check copy_odd = lab00::check_copy(1000003, 1, 3, cudalabs::derive_seed(seed, "copy odd"));
  const Check fma_small = lab00::check_fma(3 * lab00::kThreadsPerBlock + 17, 1000, 1 << 20);
  const Check fma_timed = lab00::check_fma(sizes.fma_threads, options.fma_iterations, 2048);
  for (const Check* check : {&copy_aligned, &copy_odd, &fma_small, &fma_timed})
    out << "  " << check->message << "\n";
  auto combine = [](const Check& a, const Check& b) {
    if (a.verdict == Verdict::kNotImplemented && b.verdict == Verdict::kNotImplemented)
      return Verdict::kNotImplemented;
    if (a.verdict == Verdict::kPass && b.verdict == Verdict::kPass) return Verdict::kPass;
    return Verdict::kFail;
  };
  return {combine(copy_aligned, copy_odd), combine(fma_small, fma_timed)};
}

// The benchmarks' names: cudaMemcpy, the copy kernel, the FMA kernel, cuBLAS.
struct Names {
  std::string memcpy, copy, fma, cublas;
};

Names names_for(const Options& options, const Sizes& sizes) {
  const std::string copy_problem = std::to_string(options.copy_mib) + "MiB";
  const std::string fma_problem =
      std::to_string(sizes.fma_threads) + "x" + std::to_string(options.fma_iterations);
  const cudalabs::GemmShape gemm{options.gemm_size, options.gemm_size, options.gemm_size};
  return {"reference/cudaMemcpy/" + copy_problem, "lab00/copy/" + copy_problem,
          "lab00/fma/" + fma_problem, "cublas/" + gemm.label()};
}

// Times cudaMemcpy, the passing kernels and cuBLAS; the buffers live until the benchmarks have run.
std::map<std::string, BenchmarkMedian> time_all(std::ostream& out, const Options& options,
                                                const Sizes& sizes, const Verdicts& verdicts,
                                                const Names& names, std::uint64_t seed,
                                                const std::vector<std::string>& benchmark_args) {
  const double copy_bytes =
      2.0 * static_cast<double>(sizes.copy_count) * sizeof(float);  // read + written
  const cudalabs::GemmShape gemm{options.gemm_size, options.gemm_size, options.gemm_size};
  const cudalabs::TimingOptions timing = options.timing;
  std::vector<float> host(sizes.copy_count);
  cudalabs::fill_uniform(host, cudalabs::derive_seed(seed, "copy timing"));
  DeviceBuffer<float> src{std::span<const float>(host)}, dst(sizes.copy_count);
  DeviceBuffer<float> fma_out(static_cast<std::size_t>(sizes.fma_threads));
  cudalabs::register_timed_benchmark(
      names.memcpy,
      [&](benchmark::State& state) {
        cudalabs::time_iterations(
            state,
            [&](cudaStream_t stream, int) {
              CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(),
                                         cudaMemcpyDeviceToDevice, stream));
            },
            0.0, copy_bytes, timing.warmups);
      },
      timing);
  if (verdicts.copy == Verdict::kPass) {
    cudalabs::register_timed_benchmark(
        names.copy,
        [&](benchmark::State& state) {
          cudalabs::time_iterations(
              state,
              [&](cudaStream_t stream, int) {
                lab00::launch_copy(src.data(), dst.data(), sizes.copy_count, stream);
              },
              0.0, copy_bytes, timing.warmups);
        },
        timing);
  }
  if (verdicts.fma == Verdict::kPass) {
    cudalabs::register_timed_benchmark(
        names.fma,
        [&](benchmark::State& state) {
          cudalabs::time_iterations(
              state,
              [&](cudaStream_t stream, int) {
                lab00::launch_fma(fma_out.data(), sizes.fma_threads, options.fma_iterations,
                                  stream);
              },
              lab00::fma_flops(sizes.fma_threads, options.fma_iterations), 0.0, timing.warmups);
        },
        timing);
  }
  std::vector<float> host_a(sizes.gemm_elements), host_b(sizes.gemm_elements);
  cudalabs::fill_uniform(host_a, cudalabs::derive_seed(seed, "gemm A"));
  cudalabs::fill_uniform(host_b, cudalabs::derive_seed(seed, "gemm B"));
  DeviceBuffer<float> a{std::span<const float>(host_a)}, b{std::span<const float>(host_b)},
      c(sizes.gemm_elements);
  cudalabs::CublasHandle cublas;
  cudalabs::register_timed_benchmark(
      names.cublas,
      [&](benchmark::State& state) {
        cudalabs::time_iterations(
            state,
            [&](cudaStream_t stream, int) {
              cudalabs::cublas_gemm_row_major(cublas,
                                              {gemm.m, gemm.n, gemm.k, 1.0f, a.data(), gemm.k,
                                               b.data(), gemm.n, 0.0f, c.data(), gemm.n},
                                              stream);
            },
            gemm.flops(), 0.0, timing.warmups);
      },
      timing);
  out << "timing: " << timing.repetitions << " repetitions, CUDA-event times, medians\n";
  return cudalabs::run_benchmarks(benchmark_args, out);
}

// The table, the two measured ceilings and the ridge point.
void print_roofline(std::ostream& out, const cudalabs::DeviceInfo& device, const Options& options,
                    const Verdicts& verdicts, const Names& names,
                    const std::map<std::string, BenchmarkMedian>& medians) {
  const double memcpy_bw = counter(medians, names.memcpy, "gbytes_per_s");
  const double copy_bw = counter(medians, names.copy, "gbytes_per_s");
  const double fma_rate = counter(medians, names.fma, "gflops");
  const double cublas_rate = counter(medians, names.cublas, "gflops");
  const double bandwidth_ceiling = std::max(std::isnan(copy_bw) ? 0.0 : copy_bw, memcpy_bw);
  const double compute_ceiling = std::max(std::isnan(fma_rate) ? 0.0 : fma_rate, cublas_rate);
  const int lanes = cudalabs::fp32_lanes_per_sm(device.major, device.minor);
  const double clock_peak = 2.0 * lanes * device.sm_count * device.sm_clock_khz * 1e-6;  // GFLOP/s
  const cudalabs::GemmShape gemm{options.gemm_size, options.gemm_size, options.gemm_size};

  TextTable table(
      {{"kernel", false}, {"ms", true}, {"rate", true}, {"% of ceiling", true}, {"check", false}});
  auto percent = [](double value, double ceiling) {
    return TextTable::number(100.0 * value / ceiling, 1);
  };
  table.add_row({"cudaMemcpy D2D", TextTable::number(milliseconds(medians, names.memcpy), 3),
                 TextTable::number(memcpy_bw, 0) + " GB/s", percent(memcpy_bw, bandwidth_ceiling),
                 "reference"});
  table.add_row({"copy (lab00)", TextTable::number(milliseconds(medians, names.copy), 3),
                 TextTable::number(copy_bw, 0) + " GB/s", percent(copy_bw, bandwidth_ceiling),
                 lab00::verdict_text(verdicts.copy)});
  table.add_row({"fma (lab00)", TextTable::number(milliseconds(medians, names.fma), 3),
                 TextTable::number(fma_rate, 0) + " GFLOP/s", percent(fma_rate, compute_ceiling),
                 lab00::verdict_text(verdicts.fma)});
  table.add_row({"cuBLAS SGEMM " + gemm.label(),
                 TextTable::number(milliseconds(medians, names.cublas), 3),
                 TextTable::number(cublas_rate, 0) + " GFLOP/s",
                 percent(cublas_rate, compute_ceiling), "reference"});
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
  std::vector<std::string> benchmark_args = cudalabs::parse_flags_with_benchmark(app, argc, argv);
  std::ostream& out =
      cudalabs::benchmark_stdout_is_machine_readable(benchmark_args) ? std::cerr : std::cout;

  cudalabs::require_gpu();
  const cudalabs::DeviceInfo device = cudalabs::current_device_info();
  if (!options.results_dir.empty()) {
    std::filesystem::create_directories(options.results_dir);
    benchmark_args.push_back("--benchmark_out=" + options.results_dir + "/lab00_" + device.slug() +
                             ".json");
    benchmark_args.push_back("--benchmark_out_format=json");
  }
  cudalabs::initialize_benchmark(benchmark_args);
  const std::uint64_t seed = cudalabs::run_seed();
  shrink_defaults_to_fit(app, options, device, out);
  const Sizes sizes = sizes_for(options, device);
  out << "lab00: the roofline\n"
      << "device: " << device.name << " (sm_" << device.major << device.minor << ", "
      << device.sm_count << " SMs, max SM clock " << device.sm_clock_khz / 1000 << " MHz, driver "
      << cudalabs::DeviceInfo::version_text(device.driver_version) << "), seed=" << seed << "\n";
  cudalabs::print_build_report(out, nullptr);  // JIT-compiled from older PTX?

  const Verdicts verdicts = check_kernels(out, options, sizes, seed);
  if (options.verify_only) return verdicts.all_passed() ? cudalabs::kExitOk : cudalabs::kExitFailed;
  cudalabs::add_benchmark_context(device, argc, argv, seed);
  const Names names = names_for(options, sizes);
  const std::map<std::string, BenchmarkMedian> medians =
      time_all(out, options, sizes, verdicts, names, seed, benchmark_args);
  print_roofline(out, device, options, verdicts, names, medians);
  return verdicts.all_passed() ? cudalabs::kExitOk : cudalabs::kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&] { return run(argc, argv); });
}
