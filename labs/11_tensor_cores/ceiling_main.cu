// lab11_ceiling: the tensor cores' peak rate on this GPU (BF16 in, FP32 sums; and Hopper's TF32),
// measured with kernels that do nothing else (ceiling_kernels.cuh), next to the BF16 rate the clock
// and the SM count promise. Lab 11's handout asks for a prediction first; this is the number the
// ladder climbs towards, as lab 00's FMA kernel is for labs 01-07.
#include "ceiling_kernels.cuh"
#include "common/cli.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/device_info.h"
#include "common/event_timer.h"
#include "common/poison.h"
#include "common/text_table.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  int iterations = 65536;
  int blocks_per_sm = 4;
  int repetitions = 5;
};

struct Rate {
  std::string kernel;
  double tflops = std::nan("");
  std::string check;
};

// Median over `repetitions` of one launch's rate, checked before and again after the timing in
// the buffer it was timed in (each time poisoned, then one launch): every thread must report all
// of its accumulators exact (1). A kernel right at its first launch but not at later ones fails
// "after timing".
template <class Launch>
Rate measure(const std::string& name, Launch launch, std::size_t threads, double flops,
             int repetitions) {
  cudalabs::DeviceBuffer<float> out(threads);
  const auto wrong_threads = [&] {  // the warm-up too
    cudalabs::poison_device(out.data(), sizeof(float) * threads);
    launch(out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> values = out.to_host();
    return std::count_if(values.begin(), values.end(), [](float v) { return v != 1.0f; });
  };
  const auto wrong = wrong_threads();
  std::vector<double> rates;
  cudalabs::EventTimer timer;
  for (int r = 0; r < repetitions; ++r) {
    timer.start();
    launch(out.data());
    timer.stop();
    rates.push_back(flops / (timer.elapsed_ms() * 1e-3) / 1e12);
  }
  std::sort(rates.begin(), rates.end());
  const auto wrong_after = wrong > 0 ? wrong : wrong_threads();
  Rate rate{name, rates[rates.size() / 2], "PASS"};
  if (wrong_after > 0) {
    rate.check = std::string(wrong > 0 ? "FAIL: " : "FAIL after timing: ") +
                 std::to_string(wrong_after) + " of " + std::to_string(threads) +
                 " threads hold an accumulator other than k x iterations";
  }
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::guarded_main(argc, argv, [&]() -> int {
    Options options;
    CLI::App app{
        "Lab 11: the tensor cores' peak BF16 (and Hopper's TF32) rate, measured by kernels that "
        "only multiply operands they already hold"};
    cudalabs::add_integer_flag(
        app, "--iterations", options.iterations, 1, 1 << 20,
        "MMA instructions per accumulator chain (sums stay exact below 2^20)");
    cudalabs::add_integer_flag(app, "--blocks-per-sm", options.blocks_per_sm, 1, 32,
                               "blocks launched per SM");
    cudalabs::add_integer_flag(app, "--repetitions", options.repetitions, 1, 1000,
                               "timed launches; the median is shown");
    cudalabs::parse_flags(app, argc, argv);
    cudalabs::require_gpu();
    const cudalabs::DeviceInfo device = cudalabs::current_device_info();
    std::cout << cudalabs::program_name() << ": " << device.name << " (sm_" << device.major
              << device.minor << ", " << device.sm_count << " SMs, " << device.sm_clock_khz / 1000
              << " MHz peak)\n";

    std::vector<Rate> rates;
    const double iterations = options.iterations;
    if (device.major >= 8) {
      const int threads_per_block = 256;
      const std::size_t blocks = static_cast<std::size_t>(device.sm_count) * options.blocks_per_sm;
      const double warps = blocks * threads_per_block / 32.0;
      rates.push_back(measure(
          "mma.sync m16n8k16",
          [&](float* out) {
            lab11::mma_ceiling_kernel<<<blocks, threads_per_block>>>(out, options.iterations);
            CUDA_CHECK_LAUNCH("lab11 mma_ceiling_kernel");
          },
          blocks * threads_per_block, warps * lab11::kMmaChains * iterations * 2.0 * 16 * 8 * 16,
          options.repetitions));
    } else {
      rates.push_back({"mma.sync m16n8k16", std::nan(""), "skipped: needs compute capability 8.0"});
    }
#ifdef CUDALABS_LAB11_SM90A
    const bool hopper = device.major == 9;
#else
    const bool hopper = false;
#endif
    // BF16 first: the suite's records read the first wgmma row as the BF16 ceiling.
    const auto wgmma_rate = [&](auto element, const std::string& name) {
      using T = decltype(element);
      if (!hopper) {
        rates.push_back(
            {name, std::nan(""), "skipped: needs compute capability 9.0 and an sm_90a build"});
        return;
      }
      const int threads_per_block = 128 * lab11::kCeilingWarpgroups;
      const std::size_t blocks = static_cast<std::size_t>(device.sm_count);
      const double warpgroups = blocks * lab11::kCeilingWarpgroups;
      rates.push_back(measure(
          name,
          [&](float* out) {
            lab11::wgmma_ceiling_kernel<T><<<blocks, threads_per_block>>>(out, options.iterations);
            CUDA_CHECK_LAUNCH("lab11 wgmma_ceiling_kernel");
          },
          blocks * threads_per_block,
          warpgroups * iterations * 2.0 * 64 * 256 * lab11::kCeilingStepK<T>, options.repetitions));
    };
    wgmma_rate(__nv_bfloat16{}, "wgmma m64n256k16");
    wgmma_rate(float{}, "wgmma m64n256k8 (TF32)");

    cudalabs::TextTable table({{"kernel", false}, {"TFLOP/s", true}, {"check", false}});
    bool all_right = true;
    for (const Rate& rate : rates) {
      table.add_row({rate.kernel, cudalabs::TextTable::number(rate.tflops, 1), rate.check});
      all_right = all_right && rate.check.rfind("FAIL", 0) != 0;
    }
    table.print(std::cout);
    std::cout << "median of " << options.repetitions << " launches, " << options.iterations
              << " MMAs per chain (the sums' k each: 16 BF16, 8 TF32); the clock-derived dense "
                 "BF16 peak is SMs x clock x 4096 FLOP "
                 "per cycle (Hopper; 2048 on Ampere): "
              << cudalabs::TextTable::number(device.sm_count * (device.sm_clock_khz * 1e3) *
                                                 (device.major >= 9 ? 4096.0 : 2048.0) / 1e12,
                                             1)
              << " TFLOP/s\n";
    return all_right ? cudalabs::kExitOk : cudalabs::kExitFailed;
  });
}
