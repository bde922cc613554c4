#!/usr/bin/env bash
# Session 36, call 2 (issue 53): Nsight Compute on call 1's short-K kernel (new), one launch each
# at shapes where it takes 1.5 to 2 times cuBLAS's GPU time: 3108x10x120 and 1105x16x16 (one block
# an SM), 81x16x104 (two blocks in all), 4000x4000x160 (C of 64 MB); the details page and the SASS
# page with its stall samples. Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
for shape in 3108x10x120 1105x16x16 81x16x104 4000x4000x160; do
  step ncu_$shape 120 ncu -k regex:short_k --launch-skip 1 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --metrics smsp__cycles_active.avg,sm__cycles_elapsed.avg,gpc__cycles_elapsed.max -o $S/ncu_$shape $S/px/new/bench_short_k_layouts11 $shape
  step ncu_sass_$shape 60 ncu -i $S/ncu_$shape.ncu-rep --page source --csv --print-source sass
done
cat $O/steps.txt
