#!/usr/bin/env bash
# Call H (main a91af90's kernels: lab 07 c6a9b25, lab 11 2b1c2e8): where the GPU time of the worst random shapes goes,
# every kernel of one best call (Nsight Compute: duration, grid, DRAM and issue), for the next steps of issue 53.
set -u
tar xJf .gpu/s17H.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
NCU="ncu --launch-skip 0 --launch-count 20 --section SpeedOfLight --section LaunchStats --section SchedulerStats --section Occupancy"
for s in 583x331x352 304x91x789 286x122x2574 82x191x528; do step ncu07_$s 90 $NCU $H/p/labs/lab07_solution --variant best --verify-only --shapes $s; done
for s in 130x4x2256 287x1x8528 5043x8x2296 539x6046x24 201x10738x36; do step ncu11_$s 90 $NCU $H/p/labs/lab11_solution --variant best --verify-only --shapes $s; done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/h.txz -C $R .
