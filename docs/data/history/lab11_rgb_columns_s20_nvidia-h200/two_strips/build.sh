#!/bin/bash
# builds exp/out/rgb_bench for sm_90a (run from the repository root): build 0 the working tree's
# labs/11_tensor_cores/dcgan_rgb_layer.cu as it is, build 1 the same with RGB_STRIPS=2
set -e
mkdir -p exp/out
F="-std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Ilabs/11_tensor_cores -DCUDALABS_LAB11_SM90A=1"
S='-DRGB_SOURCE="labs/11_tensor_cores/dcgan_rgb_layer.cu"'
nvcc $F "$S" -DVARIANT_BF16=rgb_bf16_0 -DVARIANT_TF32=rgb_tf32_0 -c exp/rgb_variant.cu -o exp/out/v0.o &
nvcc $F "$S" -DRGB_STRIPS=2 -DVARIANT_BF16=rgb_bf16_1 -DVARIANT_TF32=rgb_tf32_1 -c exp/rgb_variant.cu -o exp/out/v1.o &
wait
nvcc $F exp/rgb_bench.cu common/cuda_check.cpp exp/out/v*.o -o exp/out/rgb_bench
