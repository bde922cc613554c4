#!/usr/bin/env bash
# Session 35, call 4 (issue 53): the kept build (c3, call 3's) against the same code with A's rows 2
# bytes apart loaded 4 bytes at a time and shifted into place (new). Lab 11's grading tests of the
# few-columns shapes and `best`, and under memcheck; bench_few_columns11 of both at shapes whose A rows
# are 2 bytes apart (and a few others); both random-shapes seeds of lab 11, new then c3; Nsight Compute
# on the 128 x 64 tiles where C has 8 columns and the tiles' model is 1.5 to 1.9 times too fast (main's
# build, which runs them at 60000x8x512 and 5043x8x2296 too). Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call4.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
F='*few_columns*:Grading.best.*'
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="$F"
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter="$F"
SHAPES="2885x8x4457 130x7x2255 1166x5x2059 777x5x3333 2500x5x5001 9000x1x4097 5000x1x9999 6001x8x3001 20001x3x777 333x8x12345 5043x8x2296 4000x6x3002"
for side in new c3; do
  step bench_$side 150 $S/px/bench/bench_few_columns11_$side $SHAPES
done
for seed in 4998064687210808757 8444672377437012093; do
  for side in new c3; do
    t=$SECONDS; r=rs_${side}_$seed
    timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
    echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    cp $S/$r/gemm_random_shapes_nvidia-h200.txt $O/${r}_summary.txt 2>/dev/null
    cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
  done
done
for shape in 60000x8x512 7000x8x3000 5043x8x2296; do
  step ncu_tiles_$shape 120 ncu --kernel-name regex:warp_specialized --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats $S/px/base/labs/gemm_random_shapes --labs 11 --shapes $shape --rounds 1 --min-rounds 1 --round-ms 0.05 --output $S/ncu_$shape.json
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
