// Lab 13 solution: softmax and attention. The kernels are in two headers (each starts with what its
// rungs do and why); launch.cuh (given) checks the arguments, sizes the grids and the shared
// memory, says which GPU each rung needs and lists the variants.
#include "lab.h"
#include "tiles.h"

#include "attention_kernels.cuh"
#include "softmax_kernels.cuh"

#include "launch.cuh"
