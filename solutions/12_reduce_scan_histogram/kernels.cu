// Lab 12 solution: reductions, scans and histograms. The kernels are in one header per pattern
// (each starts with what its rungs do and why); launch.cuh (given) checks the arguments, sizes the
// grids and lists the variants; scan_tile.cuh (given) holds a scan tile's layout, loads and stores.
// The core: the sum's four rungs, scan_block, and the histogram's two.
#include "lab.h"
#include "scan_tile.cuh"
#include "vectors.cuh"

#include "histogram_kernels.cuh"
#include "scan_kernels.cuh"
#include "sum_kernels.cuh"

// ---- The optional challenge: sum_one_pass, scan_lookback, hist_warp_aggregated ----
// Each calls the core's helpers above (thread_sum and block_sum, the tile scan, warp_sum, the
// histogram's bins) unchanged.
#include "lookback_scan.cuh"
#include "one_pass_sum.cuh"
#include "warp_aggregated_histogram.cuh"

#include "launch.cuh"
