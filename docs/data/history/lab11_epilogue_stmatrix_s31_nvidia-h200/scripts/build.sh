#!/bin/bash
# build.sh NAME KERNEL_DIR: tb_NAME, tb.cu over the solution's sub-pixel kernel, with KERNEL_DIR's
# subpixel_kernel.cuh first on the include path (an experiment's copy: offline/variants.py).
# R: the repository's root; B: a CMake build folder of it (for suite-view and the common library).
N=$1; K=$2; R=${R:?the repository root}; B=${B:?a build folder}
/usr/local/cuda/bin/nvcc -DCUDALABS_BUILD_SOLUTION=1 -DCUDALABS_LAB11_SM90A=1 -I$K -I$R/solutions/11_tensor_cores \
  -I$R/labs/11_tensor_cores -I$R -I$B/suite-view -I$R/labs/09_dcgan -I$R/labs/07_wide_loads -O3 -DNDEBUG \
  --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 "$(dirname "$0")/tb.cu" \
  $R/labs/11_tensor_cores/tma_maps.cpp $B/common/libcudalabs_common.a -lcuda -lgomp -o tb_$N
