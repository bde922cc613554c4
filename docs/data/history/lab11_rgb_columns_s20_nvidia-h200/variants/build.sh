#!/bin/bash
# builds exp/out/rgb_bench for sm_90 (run from the repository root)
set -e
mkdir -p exp/out
V=("-DRGB_COLUMNS_BY_ROW=0" "" "-DRGB_FRAGMENT_REGISTERS=68" "-DRGB_FRAGMENT_REGISTERS=68 -DRGB_MIN_WARPS=12" "-DRGB_FRAGMENT_REGISTERS=68 -DRGB_MIN_WARPS=16" "-DRGB_FRAGMENT_REGISTERS=34 -DRGB_MIN_WARPS=16" "-DRGB_FRAGMENT_REGISTERS=68 -DRGB_MIN_WARPS=12 -DRGB_ROWS_AHEAD=6")
N='"packed cols","by row","2 slices","2 slices 12 warps","2 slices 16 warps","4 slices 16 warps","2sl 12w 6 ahead"'
F="-std=c++20 -O3 -lineinfo -arch=sm_90 -I. -Ilabs/11_tensor_cores"
for i in "${!V[@]}"; do
  nvcc $F ${V[$i]} -DVARIANT_BF16=rgb_bf16_$i -DVARIANT_TF32=rgb_tf32_$i -c exp/rgb_variant.cu -o exp/out/v$i.o &
  if (( i % 2 == 1 )); then wait; fi
done
wait
nvcc $F exp/rgb_bench.cu common/cuda_check.cpp exp/out/v*.o -o exp/out/rgb_bench
ls -la exp/out
