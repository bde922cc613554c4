#!/usr/bin/env bash
# Session 35, call 5 (issue 53): call 4's Nsight Compute step again (it asked for 1 round, and
# gemm_random_shapes takes 2 at least): the 128 x 64 tiles of main's build (fb80f9f) where C has 8
# columns and the tiles' model is 1.5 to 1.9 times too fast, two launches a shape.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call5.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
for shape in 60000x8x512 7000x8x3000 5043x8x2296 9313x8x9424; do
  step ncu_tiles_$shape 120 ncu --kernel-name regex:warp_specialized --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats $S/px/base/labs/gemm_random_shapes --labs 11 --shapes $shape --rounds 2 --min-rounds 2 --round-ms 0.05 --output $S/ncu_$shape.json
done
cat $O/steps.txt
