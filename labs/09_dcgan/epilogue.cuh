// The per-channel tail every lab 09 kernel applies to its outputs (lab.h, Epilogue).
#pragma once

#include "labs/09_dcgan/lab.h"

namespace lab09 {

/// activation(value * scale[channel] + shift[channel]), with the defaults of Epilogue.
__device__ __forceinline__ float apply_epilogue(const Epilogue& epilogue, float value,
                                                int channel) {
  const float scale = epilogue.scale ? epilogue.scale[channel] : 1.0f;
  const float shift = epilogue.shift ? epilogue.shift[channel] : 0.0f;
  const float v = fmaf(value, scale, shift);
  if (epilogue.activation == Activation::kRelu) return fmaxf(v, 0.0f);
  if (epilogue.activation == Activation::kTanh) return tanhf(v);
  return v;
}

}  // namespace lab09
