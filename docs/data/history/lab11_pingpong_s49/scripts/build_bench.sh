#!/usr/bin/env bash
# Builds bench_pingpong11 against a tree: build_bench.sh TREE BUILD OUTPUT. TREE: a checkout of the
# repository; BUILD: a CMake build of it (Release, CUDA architectures 90-real), for its generated
# headers and libcudalabs_common.a. bench_support.cuh is session 27's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$1"
nvcc ${BENCH_FLAGS:-} -DCUDALABS_BUILD_SOLUTION=1 -DCUDALABS_LAB11_SM90A=1 -Isolutions/11_tensor_cores \
  -Ilabs/11_tensor_cores -I. -I"$2/suite-view" -Ilabs/09_dcgan -Ilabs/07_wide_loads -I"$here" \
  -I"$here/../../gemm_short_k_s27_nvidia-h200/scripts" -O3 \
  --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 "$here/bench_pingpong11.cu" \
  labs/11_tensor_cores/tma_maps.cpp "$2/common/libcudalabs_common.a" -lcublas -lcuda \
  -Xcompiler -fopenmp -lgomp -o "$3"
