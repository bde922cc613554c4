// The timed rounds' floor (grader/referee/memory_floor.h): what the memory can move at its peak,
// less what the L2 holds, refuses a round whose work was precomputed and never an honest one.
#include "grader/referee/memory_floor.h"

#include <gtest/gtest.h>

namespace grader::referee {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(MemoryFloor, PeakFromTheClockAndTheBus) {
  // An H100 SXM reports a 2,619 MHz memory clock on a 5,120-bit bus: 3.35 TB/s.
  EXPECT_NEAR(memory_ceiling(2619000, 5120, 50 * kMiB).peak_bytes_per_s, 3.352e12, 1e9);
  // An RTX 4090: 10,501 MHz, 384 bits: 1.008 TB/s.
  EXPECT_NEAR(memory_ceiling(10501000, 384, 72 * kMiB).peak_bytes_per_s, 1.008e12, 1e9);
}

TEST(MemoryFloor, WhatTheL2HoldsIsNotCounted) {
  const MemoryCeiling ceiling{4e12, 50 * kMiB};
  // A sum of 2^26 floats reads 256 MiB and writes one float: 206 MiB from DRAM a call.
  const CallBytes sum{256 * kMiB, 4};
  EXPECT_DOUBLE_EQ(least_round_seconds(ceiling, sum, 10), 10 * 206 * kMiB / 4e12);
  // A scan reads and writes 256 MiB: 412 MiB.
  EXPECT_DOUBLE_EQ(least_round_seconds(ceiling, {256 * kMiB, 256 * kMiB}, 1), 412 * kMiB / 4e12);
  // What the L2 could hold gives no floor; nor does an unknown ceiling or a round of no calls.
  EXPECT_EQ(least_round_seconds(ceiling, {40 * kMiB, 40 * kMiB}, 64), 0.0);
  EXPECT_EQ(least_round_seconds(MemoryCeiling{}, sum, 64), 0.0);
  EXPECT_EQ(least_round_seconds(ceiling, sum, 0), 0.0);
}

TEST(MemoryFloor, HonestRoundsPassAndPrecomputedOnesDoNot) {
  // An H200 (4.8 TB/s, 50 MiB of L2) and lab 12's timed sum of 2^26 floats, 64 calls a round.
  const MemoryCeiling h200{4.8e12, 50 * kMiB};
  const CallBytes sum{4.0 * (1 << 26), 4};
  const double least = least_round_seconds(h200, sum, 64);
  // The fastest honest sum recorded on it: 4,004 GB/s (the grader's record of issue 52,
  // lab12_full_one_profile/lab12-bench.json, sum_multi_element), a whole read of each window.
  const double honest = 64 * 4.0 * (1 << 26) / 4004e9;
  EXPECT_GT(honest, least);
  // The same at the memory's peak itself, every byte from DRAM: still not refused.
  EXPECT_GT(64 * 4.0 * (1 << 26) / 4.8e12, least);
  // One read of the whole pool (the window and 256 MiB of slack) then every call answered from a
  // running total: 512 MiB at the peak and 64 launches of 3 us.
  const double precomputed = 512 * kMiB / 4.8e12 + 64 * 3e-6;
  EXPECT_LT(precomputed, least);
}

}  // namespace
}  // namespace grader::referee
