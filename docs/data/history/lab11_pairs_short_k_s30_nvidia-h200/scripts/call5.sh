#!/usr/bin/env bash
# Session 30, call 5 (issue 53, for the next session): Nsight Compute (its own clocks) on lab 11's `best` and cuBLAS
# at three of the random shapes' worst: 2885x8x4457 and 5043x8x2296 (C of 8 columns: the few-columns kernel and the
# 64-wide tiles split in two) and 10249x272x10072 (a large GEMM at 0.59 of cuBLAS), every kernel of the first
# calls: time, DRAM bytes and throughput, occupancy, warp states.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call5.tar.xz -C $O --exclude='*.ncu-rep' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s" | tee -a $O/steps.txt; pack_out; return $rc; }
for shape in 2885x8x4457 5043x8x2296 10249x272x10072; do
  step ncu_$shape 150 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --launch-count 12 --print-units base -k 'regex:few_columns|warp_specialized|copy|nvjet|sm90_|cutlass|gemv|gemm|finish' $S/new/labs/gemm_random_shapes --labs 11 --shapes $shape --rounds 2 --min-rounds 1 --round-ms 0.05 --seed 7 --output $O/times_$shape.json
done
pack_out
