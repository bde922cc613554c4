#!/bin/bash
# Session 21, call 1: lab 07's split plans finishing in place; lab 11's TF32 ceiling.
set -u
BINS=${BINS:-$PWD/.bins}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
L=$OUT/log.txt
step() { local name=$1 limit=$2; shift 2; echo "== $name ($(date +%T)): $*" >> $L; local t=$SECONDS; timeout $limit "$@" >> $L 2>&1; echo "== $name rc=$? $((SECONDS-t)) s" | tee -a $L; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >> $L
step ceiling 60 $X/labs/lab11_ceiling
step split_solution 120 $X/tests/lab07_split_finish_solution
step split_student 60 $X/tests/lab07_split_finish_student
step plans_solution 120 $X/tests/lab07_grading_solution --gtest_filter='*BestPlans*'
mkdir -p $X/build/labs $BINS/random && cp $X/labs/gemm_random_shapes $X/build/labs/
step random 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 4998064687210808757 $X/build $BINS/random
(cd $BINS/random && tar cJf $OUT/random.tar.xz .)
step plans 150 $X/labs/lab07_plans_solution --shapes 300x150x3000,200x100x8000,120x250x1500,500x300x600,64x64x10000,1000x200x2000,30x700x4000,9x300x9000,700x520x1100 --repetitions 7 --output $OUT/plans.json
step plans_student 60 $X/tests/lab07_grading_student --gtest_filter='*BestPlans*'
step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $X/tests/lab07_grading_solution --gtest_filter='*BestPlans*'
step synccheck 60 compute-sanitizer --tool synccheck --error-exitcode 1 $X/tests/lab07_split_finish_solution --gtest_filter='*Captured*'
step racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $X/tests/lab07_split_finish_solution --gtest_filter='*Captured*'
step grading_solution 200 $X/tests/lab07_grading_solution --gtest_filter='-*BestPlans*'
