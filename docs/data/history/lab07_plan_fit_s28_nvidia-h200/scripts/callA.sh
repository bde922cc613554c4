#!/usr/bin/env bash
# Session 28, call A: lab 07's planner refitted (tiles' fixed costs, a round's start and store,
# the short-K kernel's costs). Its GPU tests and memcheck of `best`; the random shapes of lab 07
# at the refit (new) and at the commit before (base), one after the other; then every plan timed
# at 40 shapes drawn afresh (seed 20261228, the random-shapes distribution, A + B + C at most
# 0.1 GiB), 10 at a time, the outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/callA.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
T=$S/px/new/tests
step lab07_grading_solution 60 $T/lab07_grading_solution --gtest_brief=1
step lab07_grading_student 30 $T/lab07_grading_student --gtest_brief=1
step lab07_split 30 $T/lab07_split_finish_solution --gtest_brief=1
step memcheck07 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.*:BestPlans.*'
seed=4998064687210808757
for side in new base; do
  t=$SECONDS
  timeout 60 scripts/gemm-random-shapes --labs 07 --seed $seed $S/px/$side $S/rs_$side > $O/rs_$side.log 2>&1
  echo "rs_$side rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
  tar -cJf $O/rs_$side.tar.xz -C $S/rs_$side . 2>/dev/null; pack
done
for part in 00 01 02 03; do
  step plans07_$part 60 $S/px/new/labs/lab07_plans_solution --shapes "$(paste -sd, pack/shapes_$part)" --within 1000 --output $O/plans07_$part.json
done
grep -h -E "geometric mean" $O/rs_*.log
