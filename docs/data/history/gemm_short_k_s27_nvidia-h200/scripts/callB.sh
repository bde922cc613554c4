#!/usr/bin/env bash
# Call B: lab 07's and lab 11's GPU tests at HEAD (grading of solution and student builds, the
# split finishes), then the short-K tests under memcheck and racecheck.
set -u
S=$(mktemp -d)  # scratch: the unpacked binaries, the outputs before they are packed
cd "$(dirname "$0")/.."
O=$S/o; mkdir -p $O
[ -d $S/px ] || { mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px; }
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; }
T=$S/px/new/tests
step lab11_grading_solution 200 $T/lab11_grading_solution --gtest_brief=1
step lab07_grading_solution 200 $T/lab07_grading_solution --gtest_brief=1
step lab11_grading_student 120 $T/lab11_grading_student --gtest_brief=1
step lab07_grading_student 120 $T/lab07_grading_student --gtest_brief=1
step lab11_split 60 $T/lab11_split_finish_solution --gtest_brief=1
step lab07_split 60 $T/lab07_split_finish_solution --gtest_brief=1
step memcheck11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='*short_k*'
step memcheck07 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 --gtest_filter='*best.short_k*:*best.*24*'
step racecheck11 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.short_k*'
step racecheck07 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab07_grading_solution --gtest_brief=1 --gtest_filter='Grading.best.short_k*'
cp $O/steps.txt $OUT/; tar -cJf $OUT/callB.tar.xz -C $O .
