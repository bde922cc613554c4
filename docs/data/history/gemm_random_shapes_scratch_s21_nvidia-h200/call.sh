#!/bin/bash
# Session 21, call 2: lab 07's narrow kernel finishing in place too; a stream's kept scratch (lab 07
# and lab 11 copies and split workspaces); lab 11's tensor maps remembered 64 deep.
set -u
BINS=${BINS:-$PWD/.bins}; X=$BINS; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib
L=$OUT/log.txt
step() { local name=$1 limit=$2; shift 2; echo "== $name ($(date +%T)): $*" >> $L; local t=$SECONDS; timeout $limit "$@" >> $L 2>&1; echo "== $name rc=$? $((SECONDS-t)) s" | tee -a $L; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >> $L
step common_gpu 120 $X/tests/common_gpu_tests
step split07_solution 120 $X/tests/lab07_split_finish_solution
step split07_student 60 $X/tests/lab07_split_finish_student
step split11_solution 120 $X/tests/lab11_split_finish_solution
mkdir -p $X/build/labs $BINS/random && cp $X/labs/gemm_random_shapes $X/build/labs/
step random 150 python3 scripts/gemm-random-shapes --labs 07,11 --seed 4998064687210808757 $X/build $BINS/random
(cd $BINS/random && tar cJf $OUT/random.tar.xz .)
step plans 120 $X/labs/lab07_plans_solution --shapes 64x64x10000,517x3x3000,40x13x2500,2000x16x1500,9x300x9000 --repetitions 7 --output $OUT/plans.json
step grading07_solution 200 $X/tests/lab07_grading_solution
step grading07_student 60 $X/tests/lab07_grading_student --gtest_filter='*BestPlans*'
step memcheck07 150 compute-sanitizer --tool memcheck --error-exitcode 1 $X/tests/lab07_grading_solution --gtest_filter='*BestPlans*'
step memcheck_scratch 120 compute-sanitizer --tool memcheck --error-exitcode 1 $X/tests/common_gpu_tests --gtest_filter='*StreamScratch*:*Aligned*'
step grading11_solution 200 $X/tests/lab11_grading_solution
step racecheck07 90 compute-sanitizer --tool racecheck --error-exitcode 1 $X/tests/lab07_split_finish_solution --gtest_filter='*Captured*'
