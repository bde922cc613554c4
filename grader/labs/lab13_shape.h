/// @file grader/labs/lab13_shape.h
/// @brief lab13::AttentionShape to and from the five members that carry it in a declared call
/// (lab13_remote::Attention, AttentionWorkspace).
#pragma once

#include "labs/13_attention/lab.h"

namespace grader::lab13_remote {

/// `call` with its shape members set from `shape`.
template <class Args>
Args with_shape(Args call, const lab13::AttentionShape& shape) {
  call.batch = shape.batch;
  call.heads = shape.heads;
  call.sequence = shape.sequence;
  call.head_dim = shape.head_dim;
  call.causal = shape.causal ? 1 : 0;
  return call;
}

/// The shape `call` carries.
template <class Args>
lab13::AttentionShape shape_of(const Args& call) {
  return {call.batch, call.heads, call.sequence, call.head_dim, call.causal != 0};
}

}  // namespace grader::lab13_remote
