#!/usr/bin/env bash
# Session 32, call 6 (issue 53): lab 09's grading tests (its lowered convolutions run lab 07's best,
# which may now pick wide_32x32), and memcheck of its GEMM-lowered variants.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O
cd "$(dirname "$0")/.."
mkdir -p $S/px && tar -xJf pack/bin6.tar.xz -C $S/px
export LD_LIBRARY_PATH=$S/px/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/environment.txt 2>&1; date -u >> $O/environment.txt
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; echo "$name rc=$? $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; tar -cJf $OUT/call6.tar.xz -C $O .; }
step lab09_grading_solution 90 $S/px/new/tests/lab09_grading_solution --gtest_brief=1
step memcheck09 90 compute-sanitizer --tool memcheck --error-exitcode 9 $S/px/new/tests/lab09_grading_solution --gtest_brief=1 --gtest_filter='Grading.lowering.*:Grading.generator_gemm*.*'
cat $O/steps.txt
