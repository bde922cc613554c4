#!/usr/bin/env bash
# Session 32, call 3 (issue 53): two smaller tiles for lab 07's `best`, 64 x 32 and 32 x 32, 2 warps
# a block (the tiles cuBLAS ran at the worst shapes in call 2). Their GPU tests and memcheck; every
# plan at 30 of the random shapes' worst (both seeds), 10 at a time; the random shapes of lab 07 at
# both seeds, this build (new) and main's (base) in turn. Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call3.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step lab07_grading_solution 90 $N/tests/lab07_grading_solution --gtest_brief=1
step lab07_grading_student 30 $N/tests/lab07_grading_student --gtest_brief=1
step lab07_split 30 $N/tests/lab07_split_finish_solution --gtest_brief=1
step lab07_split_student 30 $N/tests/lab07_split_finish_student --gtest_brief=1
step memcheck07 120 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.wide_64x32.*:Grading.wide_32x32.*:Grading.best.*:BestPlans.*'
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS
    timeout 90 scripts/gemm-random-shapes --labs 07 --seed $seed $S/px/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    tar -cJf $O/rs_${side}_$seed.tar.xz -C $S/rs_${side}_$seed . 2>/dev/null; pack
  done
done
for part in 00 01 02; do
  step plans07_$part 90 $N/labs/lab07_plans_solution --shapes "$(paste -sd, pack/shapes_$part)" --output $O/plans07_$part.json
done
grep -h -E "geometric mean" $O/rs_*.log
cat $O/steps.txt
