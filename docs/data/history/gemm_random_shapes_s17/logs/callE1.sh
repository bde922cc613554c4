#!/usr/bin/env bash
# Call E1 (branch wip-s17): correctness of lab 07's few-rows loader (copies worked out once, a full stage checks nothing)
# and lab 11's swizzled stages unrolled at every alignment: grading tests, skeletons, sanitizers.
set -u
tar xJf .gpu/s17E1.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g07 120 $H/n/tests/lab07_grading_solution
step g07_student 60 $H/n/tests/lab07_grading_student --gtest_filter='BestPlans.*:Grading.best.*'
step g11 150 $H/n/tests/lab11_grading_solution --gtest_filter='Grading.wmma*:Grading.mma*:Grading.wgmma.*:Grading.best.*'
step g11_fp16 60 $H/n/tests/lab11_fp16_grading_solution
step g11_student 60 $H/n/tests/lab11_grading_student --gtest_filter='Grading.mma_swizzled.*:Grading.wgmma.*:Grading.best.*'
step mc07 150 compute-sanitizer --tool memcheck --error-exitcode 9 $H/n/tests/lab07_grading_solution --gtest_filter='BestPlans.*:Grading.best.*'
FEW="20x301x777_ldb+3,3x517x1500_off+1,33x65x4099_ld+1,1x1030x33,64x200x300_off+1,17x130x1000,5x8902x1000,40x3x3000_ldb+1,9x70x45,2x65x696"
step rc07 100 compute-sanitizer --tool racecheck --error-exitcode 9 $H/n/labs/lab07_solution --variant best --verify-only --shapes $FEW
step ic07 60 compute-sanitizer --tool initcheck --error-exitcode 9 $H/n/labs/lab07_solution --variant best --verify-only --shapes $FEW
step mc07s 60 compute-sanitizer --tool memcheck --error-exitcode 9 $H/n/labs/lab07_solution --variant best --verify-only --shapes $FEW
step mc11 150 compute-sanitizer --tool memcheck --error-exitcode 9 $H/n/tests/lab11_grading_solution --gtest_filter='Grading.wgmma.*:Grading.mma_swizzled.*'
step rc11 100 compute-sanitizer --tool racecheck --error-exitcode 9 $H/f/labs/lab11_solution --variant wgmma --variant mma_swizzled --verify-only --shapes 50x628x40,131x67x69_off+1,256x256x128,200x136x72_ldb+1
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/e1.txz -C $R .
