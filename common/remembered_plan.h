/// @file remembered_plan.h
/// @brief A GEMM planner's answer, remembered from the calling thread's last call.
#pragma once

#include "common/gemm_types.h"
#include "common/launch_utils.h"

namespace cudalabs {

/// `plan(shape, sms)` on the current GPU's SMs, remembered from this thread's last call for the
/// same shape and SM count: a planner's model costs microseconds of host time, as much as a small
/// GEMM's GPU time, and a caller's loop asks for the same shape again and again. One memory per
/// Plan type (each lab's planner keeps its own).
template <class Plan, class Planner>
const Plan& remembered_plan(const GemmShape& shape, Planner plan) {
  thread_local GemmShape last_shape{0, 0, 0};
  thread_local int last_sms = 0;
  thread_local Plan last_plan{};
  const int sms = multiprocessor_count();
  if (shape.m != last_shape.m || shape.n != last_shape.n || shape.k != last_shape.k ||
      sms != last_sms) {
    last_plan = plan(shape, sms);
    last_shape = shape;
    last_sms = sms;
  }
  return last_plan;
}

}  // namespace cudalabs
