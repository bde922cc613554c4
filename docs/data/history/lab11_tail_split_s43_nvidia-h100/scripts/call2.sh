#!/usr/bin/env bash
# Session 43, call 2 (issue 53): call 1's kernels, the costs of rows off 128-byte lines set from
# call 1's bench_lines (kOffLineBRowsCost 0.23, kOffLineARowsCost 0.10, no copy where one row or
# column of tiles reads the operand once). Lab 11's CPU plan tests, grading tests (solution),
# split-finish tests, memcheck of the grading's split shapes, the bench's tail mode, and both
# random-shapes seeds of lab 11 twice, new and base (main at 05f209f) in turn. Call 1 lacked
# Google Benchmark's library for the random-shapes program: packed here as lib/.
# Run from the repository root with pack/bin.tar.xz as in call1.sh plus lib/, and copies of this
# script and shapes_tail.txt in pack/.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11 300 $N/tests/lab11_grading_solution --gtest_brief=1
step split_finish 150 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck11 300 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*tail_split*:Grading.best.*split_k*:Grading.best.*a_onto*'
step bench_tail 240 $N/bench_tail_split11 tail $(cat pack/shapes_tail.txt)
for round in 1 2; do
  for seed in 4998064687210808757 8444672377437012093; do
    for side in new base; do
      t=$SECONDS; r=rs_${side}_${seed}_$round
      timeout 60 scripts/gemm-random-shapes --labs 11 --seed $seed $S/px/$side $S/$r > $O/$r.log 2>&1
      echo "$r rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
      cp $S/$r/gemm_random_shapes_nvidia-h*.txt $O/${r}_summary.txt 2>/dev/null
      cp $S/$r/gemm_random_shapes_times.json $O/${r}_times.json 2>/dev/null; pack
    done
  done
done
for f in $O/rs_*.log; do echo "$(basename $f)"; grep -E "geometric mean" $f | head -1; done
cat $O/steps.txt
