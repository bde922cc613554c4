// Lab 12 solution: reductions, scans and histograms. The kernels are in three headers, one per
// pattern (each starts with what its rungs do and why); launch.cuh (given) checks the arguments,
// sizes the grids and lists the variants.
#include "lab.h"
#include "vectors.cuh"

#include "histogram_kernels.cuh"
#include "scan_kernels.cuh"
#include "sum_kernels.cuh"

#include "launch.cuh"
