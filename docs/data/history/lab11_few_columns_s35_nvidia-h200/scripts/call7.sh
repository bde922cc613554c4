#!/usr/bin/env bash
# Session 35, call 7 (issue 53): the final build (rows_allow_16_byte_loads now widest_row_load_bytes
# == 16, the same rule stated once; comments). Lab 11's grading tests (solution, student), split and
# DCGAN tests, memcheck of the few-columns and `best` tests; lab 07's grading tests, which
# rows_allow_16_byte_loads steers too. Outputs packed after each step.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call7.tar.xz -C $O . ; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack; }
N=$S/px/new
step grading11 240 $N/tests/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $N/tests/lab11_grading_student --gtest_brief=1
step split11 60 $N/tests/lab11_split_finish_solution --gtest_brief=1
step dcgan11 150 $N/tests/lab11_dcgan_solution --gtest_brief=1
step memcheck11 240 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/lab11_grading_solution --gtest_brief=1 --gtest_filter='*few_columns*:Grading.best.*'
step grading07 240 $N/tests/lab07_grading_solution --gtest_brief=1
cat $O/steps.txt
