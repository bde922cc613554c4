/// @file labs/00_roofline/checks.h
/// @brief Bit-exact checks of the two roofline kernels, shared by the lab 00 driver and its grading
/// tests.
#pragma once

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/poison.h"
#include "common/random_fill.h"
#include "lab.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace lab00 {

/// How a check ended.
enum class Verdict { kPass, kNotImplemented, kFail };

/// A check's verdict and its one-line message.
struct Check {
  Verdict verdict = Verdict::kFail;  ///< the outcome
  std::string message;               ///< what was checked and what was found
};

/// "PASS", "not implemented yet" or "FAIL".
inline const char* verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kNotImplemented:
      return "not implemented yet";
    case Verdict::kFail:
      return "FAIL";
  }
  return "?";
}

/// Draws `count` fresh floats from `seed` into `src`, poisons `dst`, copies with launch_copy and
/// compares bit for bit: the check of the timed buffers after timing, and the body of check_copy.
/// `what` opens the message.
inline Check check_copy_in(const float* src, float* dst, std::size_t count, std::uint64_t seed,
                           const std::string& what) {
  std::vector<float> host(count);
  cudalabs::fill_uniform(host, seed);
  CUDA_CHECK(cudaMemcpy(const_cast<float*>(src), host.data(), count * sizeof(float),
                        cudaMemcpyHostToDevice));
  cudalabs::poison_device(dst, count * sizeof(float));
  launch_copy(src, dst, count, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> result(count);
  CUDA_CHECK(cudaMemcpy(result.data(), dst, count * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t unwritten = 0, wrong = 0, first_bad = count;
  for (std::size_t i = 0; i < count; ++i) {
    const float got = result[i];
    if (cudalabs::is_poison(got)) {
      ++unwritten;
    } else if (std::memcmp(&got, &host[i], sizeof got) != 0) {
      ++wrong;
    } else {
      continue;
    }
    first_bad = std::min(first_bad, i);
  }
  const std::string text = what + ": ";
  if (unwritten == count)
    return {Verdict::kNotImplemented, text + "never written: not implemented yet"};
  if (unwritten + wrong > 0) {
    return {Verdict::kFail, text + std::to_string(unwritten) + " unwritten and " +
                                std::to_string(wrong) + " wrong elements, first at " +
                                std::to_string(first_bad)};
  }
  return {Verdict::kPass, text + "PASS (bit-exact)"};
}

/// Copies `count` floats with launch_copy into a NaN-poisoned destination and compares bit for bit.
/// The offsets (in floats) move the pointers off 16-byte alignment to exercise the scalar path.
inline Check check_copy(std::size_t count, std::size_t src_offset, std::size_t dst_offset,
                        std::uint64_t seed) {
  cudalabs::DeviceBuffer<float> src(count + src_offset), dst(count + dst_offset);
  std::ostringstream what;
  what << "copy of " << count << " floats (offsets " << src_offset << ", " << dst_offset << ")";
  return check_copy_in(src.data() + src_offset, dst.data() + dst_offset, count, seed, what.str());
}

/// Poisons `out`, runs launch_fma into it and compares about `sampled` outputs (evenly spaced, the
/// last thread included) bit for bit with fma_reference: the check of the timed buffer after
/// timing, and the body of check_fma. `what` opens the message.
inline Check check_fma_in(float* out, long long threads, int iterations, long long sampled,
                          const std::string& what) {
  cudalabs::poison_device(out, static_cast<std::size_t>(threads) * sizeof(float));
  launch_fma(out, threads, iterations, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> result(static_cast<std::size_t>(threads));
  CUDA_CHECK(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<long long> sample;
  const long long step = std::max(1LL, threads / sampled);
  for (long long t = 0; t < threads; t += step) sample.push_back(t);
  if (sample.back() != threads - 1) sample.push_back(threads - 1);
  long long unwritten = 0, wrong = 0, first_bad = -1;
  for (const long long t : sample) {
    const float got = result[static_cast<std::size_t>(t)];
    const float expected = fma_reference(t, iterations);
    if (cudalabs::is_poison(got)) {
      ++unwritten;
    } else if (std::memcmp(&got, &expected, sizeof got) != 0) {
      ++wrong;
    } else {
      continue;
    }
    if (first_bad < 0) first_bad = t;
  }
  const std::string text = what + " (" + std::to_string(sample.size()) + " checked): ";
  if (unwritten == static_cast<long long>(sample.size())) {
    return {Verdict::kNotImplemented, text + "never written: not implemented yet"};
  }
  if (unwritten + wrong > 0) {
    return {Verdict::kFail, text + std::to_string(unwritten) + " unwritten and " +
                                std::to_string(wrong) + " wrong, first at thread " +
                                std::to_string(first_bad)};
  }
  return {Verdict::kPass, text + "PASS (bit-exact)"};
}

/// Runs launch_fma and compares about `sampled` outputs (evenly spaced, the last thread included)
/// bit for bit with fma_reference.
inline Check check_fma(long long threads, int iterations, long long sampled) {
  cudalabs::DeviceBuffer<float> out(static_cast<std::size_t>(threads));
  return check_fma_in(out.data(), threads, iterations, sampled,
                      "fma of " + std::to_string(threads) + " threads x " +
                          std::to_string(iterations) + " iterations");
}

}  // namespace lab00
