#!/bin/bash
# builds exp/out/rgb_bench for sm_90 (run from the repository root): variant 0 is the layer before
# this change, 1 the first cut (swizzled rows), 2 the kept kernel, 3 it with 2 bands forced
set -e
rm -rf exp/out; mkdir -p exp/out
F="-std=c++20 -O3 -lineinfo -arch=sm_90 -I. -Ilabs/11_tensor_cores"
nvcc $F -DVARIANT_BF16=rgb_bf16_0 -DVARIANT_TF32=rgb_tf32_0 -c exp/rgb_old.cu -o exp/out/v0.o &
nvcc $F -DVARIANT_BF16=rgb_bf16_1 -DVARIANT_TF32=rgb_tf32_1 -c exp/rgb_v1.cu -o exp/out/v1.o
wait
nvcc $F -DVARIANT_BF16=rgb_bf16_2 -DVARIANT_TF32=rgb_tf32_2 -c exp/rgb_variant.cu -o exp/out/v2.o &
nvcc $F -DRGB_BANDS=2 -DVARIANT_BF16=rgb_bf16_3 -DVARIANT_TF32=rgb_tf32_3 -c exp/rgb_variant.cu -o exp/out/v3.o
wait
nvcc $F exp/rgb_bench.cu common/cuda_check.cpp exp/out/v*.o ${COMMON_LIB:-build/common/libcudalabs_common.a} -Xcompiler -fopenmp -o exp/out/rgb_bench
