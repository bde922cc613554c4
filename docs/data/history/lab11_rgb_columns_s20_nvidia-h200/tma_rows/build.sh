#!/bin/bash
# builds exp/out/rgb_bench for sm_90a (run from the repository root): build 0 is exp/rgb_old.cu
# (the RGB layer at 421345d), build 1 the working tree's labs/11_tensor_cores/dcgan_rgb_layer.cu
set -e
mkdir -p exp/out
F="-std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Ilabs/11_tensor_cores -DCUDALABS_LAB11_SM90A=1"
nvcc $F '-DRGB_SOURCE="exp/rgb_old.cu"' -DVARIANT_BF16=rgb_bf16_0 -DVARIANT_TF32=rgb_tf32_0 -c exp/rgb_variant.cu -o exp/out/v0.o &
nvcc $F '-DRGB_SOURCE="labs/11_tensor_cores/dcgan_rgb_layer.cu"' -DVARIANT_BF16=rgb_bf16_1 -DVARIANT_TF32=rgb_tf32_1 -c exp/rgb_variant.cu -o exp/out/v1.o &
wait
nvcc $F exp/rgb_bench.cu common/cuda_check.cpp common/build_report.cpp labs/11_tensor_cores/tma_maps.cpp common/build_probe.cu common/tensor_map_encoder.cpp exp/out/v*.o -lcuda -o exp/out/rgb_bench
ls -la exp/out
