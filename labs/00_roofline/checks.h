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

/// Copies `count` floats with launch_copy into a NaN-poisoned destination and compares bit for bit.
/// The offsets (in floats) move the pointers off 16-byte alignment to exercise the scalar path.
inline Check check_copy(std::size_t count, std::size_t src_offset, std::size_t dst_offset,
                        std::uint64_t seed) {
  std::vector<float> host(count + src_offset);
  cudalabs::fill_uniform(host, seed);
  cudalabs::DeviceBuffer<float> src{std::span<const float>(host)};
  cudalabs::DeviceBuffer<float> dst(count + dst_offset);
  cudalabs::poison_device(dst.data(), dst.bytes());
  launch_copy(src.data() + src_offset, dst.data() + dst_offset, count, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> result = dst.to_host();
  std::size_t unwritten = 0, wrong = 0, first_bad = count;
  for (std::size_t i = 0; i < count; ++i) {
    const float got = result[i + dst_offset];
    if (cudalabs::is_poison(got)) {
      ++unwritten;
    } else if (std::memcmp(&got, &host[i + src_offset], sizeof got) != 0) {
      ++wrong;
    } else {
      continue;
    }
    first_bad = std::min(first_bad, i);
  }
  std::ostringstream text;
  text << "copy of " << count << " floats (offsets " << src_offset << ", " << dst_offset << "): ";
  if (unwritten == count)
    return {Verdict::kNotImplemented, text.str() + "never written: not implemented yet"};
  if (unwritten + wrong > 0) {
    text << unwritten << " unwritten and " << wrong << " wrong elements, first at " << first_bad;
    return {Verdict::kFail, text.str()};
  }
  return {Verdict::kPass, text.str() + "PASS (bit-exact)"};
}

/// Runs launch_fma and compares about `sampled` outputs (evenly spaced, the last thread included)
/// bit for bit with fma_reference.
inline Check check_fma(long long threads, int iterations, long long sampled) {
  cudalabs::DeviceBuffer<float> out(static_cast<std::size_t>(threads));
  cudalabs::poison_device(out.data(), out.bytes());
  launch_fma(out.data(), threads, iterations, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> result = out.to_host();
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
  std::ostringstream text;
  text << "fma of " << threads << " threads x " << iterations << " iterations (" << sample.size()
       << " checked): ";
  if (unwritten == static_cast<long long>(sample.size())) {
    return {Verdict::kNotImplemented, text.str() + "never written: not implemented yet"};
  }
  if (unwritten + wrong > 0) {
    text << unwritten << " unwritten and " << wrong << " wrong, first at thread " << first_bad;
    return {Verdict::kFail, text.str()};
  }
  return {Verdict::kPass, text.str() + "PASS (bit-exact)"};
}

}  // namespace lab00
