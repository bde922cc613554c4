#!/usr/bin/env bash
# Session 36, call 6 (issue 53): Nsight Compute on the kept build's `best` where it is furthest from
# cuBLAS: the short-K kernel under a large C (5892x1056x128, 15683x552x56) and the split tiles of a
# small C over a long K (135x80x2312, 114x54x3896, 14x160x7088); the details page of each kernel of
# one call (the check's, so operands are as the program lays them: tight rows).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call6.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt; pack; }
for shape in 5892x1056x128 15683x552x56 135x80x2312 114x54x3896 14x160x7088; do
  step ncu_$shape 150 ncu --kernel-name regex:'short_k|warp_specialized|sum_slices|repack|copy' --launch-count 4 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats $S/px/kept/labs/gemm_random_shapes --labs 11 --shapes $shape --rounds 2 --min-rounds 1 --round-ms 0.05 --output $S/rs_$shape.json
done
cat $O/steps.txt
