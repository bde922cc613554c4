#!/bin/bash
# Session 21, call 8 (issue 53's next step): Nsight Compute of lab 07's best and cuBLAS's SGEMM at two shapes where
# cuBLAS is far ahead on the GPU (a short K under a wide C, and a mid-size C of one wave).
set -u
BINS=${BINS:-$PWD/.bins}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $OUT/gpu.txt
timeout 240 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SchedulerStats -k regex:'wide_gemm|xmma|sgemm' --launch-count 12 \
  $X/labs/lab07_solution --variant best --shapes 2721x891x24,583x331x352 --repetitions 1 --min-time 0.001 \
  --warmups 0 > $OUT/ncu.txt 2>&1
echo "rc=$?" | tee -a $OUT/gpu.txt
