// Lab 00's interface as the referee links it: the copy and the FMA kernels, each call made in the
// runner (the calls: lab00_remote.h); the timed and profiled problems (a large copy, many FMA
// chains) checked bit for bit.
#include "common/device_info.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "grader/labs/lab00_remote.h"
#include "grader/referee/remote_operand.h"
#include "grader/referee/workload.h"
#include "labs/00_roofline/lab.h"

#include <cuda_runtime.h>

#include <cstring>
#include <random>
#include <stdexcept>

namespace lab00 {

void launch_copy(const float* src, float* dst, std::size_t count, cudaStream_t stream) {
  grader::referee::OperandSession session(grader::referee::RemoteRunner::shared(), stream);
  const auto elements = count == 0 ? std::int64_t{-1} : static_cast<std::int64_t>(count);
  const std::int64_t in = session.input(src, elements, sizeof(float));
  const std::int64_t out = session.output(dst, elements, sizeof(float), "dst");
  session.run({grader::remote::to_call(grader::lab00_remote::Copy{
      .count = static_cast<std::int64_t>(count), .src = {in}, .dst = {out}})});
}

void launch_fma(float* out, long long threads, int iterations, cudaStream_t stream) {
  grader::referee::OperandSession session(grader::referee::RemoteRunner::shared(), stream);
  const std::int64_t buffer = session.output(out, threads < 1 ? -1 : threads, sizeof(float), "out");
  session.run({grader::remote::to_call(
      grader::lab00_remote::Fma{.threads = threads, .iterations = iterations, .out = {buffer}})});
}

}  // namespace lab00

namespace grader::referee {
namespace {

std::int64_t flag_value(const std::vector<std::string>& args, const std::string& flag,
                        std::int64_t fallback, std::int64_t low, std::int64_t high) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != flag) continue;
    try {
      std::size_t used = 0;
      const long long value = std::stoll(args[i + 1], &used);
      if (used == args[i + 1].size() && value >= low && value <= high) return value;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(flag + ": '" + args[i + 1] + "' is not in [" + std::to_string(low) +
                                ", " + std::to_string(high) + "]");
  }
  return fallback;
}

// A copy of `count` floats: every set's source a fresh window of a random pool, its destination
// poisoned; the result must equal the source bit for bit.
class CopyWorkload : public Workload {
 public:
  explicit CopyWorkload(std::size_t count) : count_(count) {}
  std::string problem() const override {
    return std::to_string(count_ * sizeof(float) >> 20) + "MiB";
  }
  double prepared_work() const override {
    return 2.0 * count_ * sizeof(float) * sets_.size();
  }  // read and written
  std::string unit() const override { return "GB/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override { return 2 * count_ * sizeof(float); }
  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    if (pool_.empty()) {
      pool_.resize(count_ + kSlack);
      cudalabs::fill_uniform(pool_,
                             cudalabs::derive_seed(cudalabs::run_seed(), "grader copy pool"));
    }
    std::mt19937_64 random(seed);
    // The pool crosses once per runner; each set's source is a device copy of its window.
    const RemoteBuffer pool = runner.put_kept("lab00 copy pool " + std::to_string(pool_.size()),
                                              pool_.data(), pool_.size() * sizeof(float));
    sets_.clear();
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      const std::size_t offset = random() % kSlack;
      const std::int64_t in =
          runner.put_slice(pool, offset * sizeof(float), count_ * sizeof(float), 0).id;
      const RemoteBuffer out = runner.put_poisoned(count_ * sizeof(float), 0);
      sets_.push_back({offset, out});
      calls.push_back(remote::to_call(lab00_remote::Copy{
          .count = static_cast<std::int64_t>(count_), .src = {in}, .dst = {out.id}}));
    }
    return calls;
  }
  void check(RemoteRunner& runner) override {
    for (std::size_t s = 0; s < sets_.size(); ++s) {
      const std::vector<std::uint8_t> got = runner.get(sets_[s].second, "dst");
      if (std::memcmp(got.data(), pool_.data() + sets_[s].first, count_ * sizeof(float)) != 0)
        throw std::runtime_error("wrong copy in input set " + std::to_string(s + 1) +
                                 ": not equal to its source bit for bit");
    }
  }
  std::vector<std::pair<std::string, double>> facts() const override {
    return {{"count", static_cast<double>(count_)}, {"bytes", 2.0 * count_ * sizeof(float)}};
  }

 private:
  static constexpr std::size_t kSlack = 1 << 16;
  std::size_t count_;
  std::vector<float> pool_;
  std::vector<std::pair<std::size_t, RemoteBuffer>> sets_;
};

// `threads` chains of about `iterations` FMAs; sampled threads must match the CPU's std::fma chains
// bit for bit, and every output must be written. A chain depends only on its thread and its length,
// so each set draws its own length (iterations + 0..63): a result kept from an earlier call is
// wrong.
class FmaWorkload : public Workload {
 public:
  FmaWorkload(long long threads, int iterations) : threads_(threads), iterations_(iterations) {}
  std::string problem() const override {
    return std::to_string(threads_) + "x" + std::to_string(iterations_);
  }
  double prepared_work() const override {
    double work = 0.0;
    for (int length : lengths_) work += lab00::fma_flops(threads_, length);
    return work;
  }
  std::string unit() const override { return "GFLOP/s"; }
  double unit_scale() const override { return 1e9; }
  std::size_t bytes_per_set() const override { return threads_ * sizeof(float); }
  std::vector<Call> prepare(RemoteRunner& runner, int sets, std::uint64_t seed) override {
    seed_ = seed;
    std::mt19937_64 random(seed);
    outputs_.clear();
    lengths_.clear();
    std::vector<Call> calls;
    for (int s = 0; s < sets; ++s) {
      lengths_.push_back(iterations_ + static_cast<int>(random() % 64));
      outputs_.push_back(
          runner.put_poisoned(static_cast<std::size_t>(threads_) * sizeof(float), 0));
      calls.push_back(remote::to_call(lab00_remote::Fma{
          .threads = threads_, .iterations = lengths_.back(), .out = {outputs_.back().id}}));
    }
    return calls;
  }
  void check(RemoteRunner& runner) override {
    std::mt19937_64 random(seed_ ^ 0x5eed);
    for (std::size_t s = 0; s < outputs_.size(); ++s) {
      const std::vector<std::uint8_t> bytes = runner.get(outputs_[s], "out");
      std::vector<float> got(static_cast<std::size_t>(threads_));
      std::memcpy(got.data(), bytes.data(), bytes.size());
      for (float value : got)
        if (cudalabs::is_poison(value))
          throw std::runtime_error("wrong FMA result: an output never written");
      for (int sample = 0; sample < 256; ++sample) {
        const long long thread =
            sample == 0 ? threads_ - 1 : static_cast<long long>(random() % threads_);
        const float expected = lab00::fma_reference(thread, lengths_[s]);
        if (std::memcmp(&expected, &got[static_cast<std::size_t>(thread)], sizeof expected) != 0)
          throw std::runtime_error("wrong FMA result of thread " + std::to_string(thread) +
                                   " in input set " + std::to_string(s + 1) +
                                   ": not the CPU's std::fma chains");
      }
    }
  }
  // Of the calls prepared last (each set draws its chains' length), else of `iterations`.
  std::vector<std::pair<std::string, double>> facts() const override {
    double iterations = 0.0, flops = 0.0;
    for (int length : lengths_) {
      iterations += length;
      flops += lab00::fma_flops(threads_, length);
    }
    if (lengths_.empty()) {
      iterations = iterations_;
      flops = lab00::fma_flops(threads_, iterations_);
    }
    return {{"threads", static_cast<double>(threads_)},
            {"count", static_cast<double>(threads_) * iterations * lab00::kFmaChains},
            {"flops", flops}};
  }

 private:
  long long threads_;
  int iterations_;
  std::uint64_t seed_ = 0;
  std::vector<RemoteBuffer> outputs_;
  std::vector<int> lengths_;
};

}  // namespace

std::unique_ptr<Workload> make_workload(const std::string& variant,
                                        const std::vector<std::string>& args) {
  if (variant == "copy") {
    const std::int64_t mib = flag_value(args, "--copy-mib", 64, 1, 16384);
    return std::make_unique<CopyWorkload>(static_cast<std::size_t>(mib) << 18);
  }
  if (variant == "fma") {
    // Enough threads to fill the GPU four times over: the referee's own device query.
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess)
      throw std::runtime_error("no GPU to size the FMA problem");
    const long long fill =
        4LL * properties.multiProcessorCount * properties.maxThreadsPerMultiProcessor;
    return std::make_unique<FmaWorkload>(
        flag_value(args, "--fma-threads", fill, 1, 1LL << 30),
        static_cast<int>(flag_value(args, "--fma-iterations", 1024, 1, 1 << 20)));
  }
  throw std::invalid_argument("lab 00 has no variant '" + variant + "' (copy, fma)");
}

}  // namespace grader::referee
