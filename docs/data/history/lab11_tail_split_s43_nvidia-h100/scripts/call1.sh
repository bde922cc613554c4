#!/usr/bin/env bash
# Session 43, call 1 (issue 53): lab 11's tail split with the revised planner (no tail split on
# tiles narrower than best_width's, kTailSplitMustSave; in a captured graph the whole tiles stored
# into C by the launch). Lab 11's CPU plan tests, grading tests (solution, student), split-finish
# tests, memcheck (grading's split shapes, split finish) and racecheck of a tail split; the bench's
# two modes (shapes_tail.txt, shapes_lines.txt); both random-shapes seeds of lab 11 twice, new and
# base (main at 05f209f) in turn. Outputs packed after each step.
# Run from the repository root with the binaries packed as pack/bin.tar.xz (new/tests/...,
# new/bench_tail_split11, new/labs/gemm_random_shapes, base/labs/gemm_random_shapes) and copies of
# this script and the shape lists in pack/.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call1.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step plan_tests 60 $N/tests/lab11_best_width_tests --gtest_brief=1
step grading11 300 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 150 $N/tests/lab11_grading_student --gtest_brief=1
step split_finish 150 $N/tests/lab11_split_finish_solution --gtest_brief=1
step memcheck11 300 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*tail_split*:Grading.best.*split_k*:Grading.best.*a_onto*'
step memcheck_split_finish 200 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_split_finish_solution --gtest_brief=1 --gtest_filter='*Captured*'
step racecheck11 150 compute-sanitizer --tool racecheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.tail_split_padded*'
step bench_tail 240 $N/bench_tail_split11 tail $(cat pack/shapes_tail.txt)
step bench_lines 150 $N/bench_tail_split11 lines $(cat pack/shapes_lines.txt)
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
