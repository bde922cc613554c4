#!/usr/bin/env bash
# Call A (branch wip-s16-combined at e88fb7e): correctness of lab 07's few-rows kernel on cp.async stages and of
# lab 11's staging off alignment (st.shared, unrolled chunks): grading tests, the skeletons, sanitizers.
set -u
tar xJf .gpu/s17A.txz
H=$PWD/h
export LD_LIBRARY_PATH=$H/lib:${LD_LIBRARY_PATH:-}
R=$(mktemp -d)
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s)
  timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi -L > $R/gpu.txt
step g07 120 $H/z/tests/lab07_grading_solution
step g07_student 60 $H/z/tests/lab07_grading_student --gtest_filter='BestPlans.*:Grading.best.*'
step g11 150 $H/z/tests/lab11_grading_solution --gtest_filter='Grading.wmma*:Grading.mma*:Grading.wgmma.*:Grading.best.*'
step g11_fp16 60 $H/z/tests/lab11_fp16_grading_solution
step g11_student 60 $H/z/tests/lab11_grading_student --gtest_filter='Grading.mma_swizzled.*:Grading.wgmma.*:Grading.best.*'
step mc07 120 compute-sanitizer --tool memcheck --error-exitcode 9 $H/z/tests/lab07_grading_solution --gtest_filter='BestPlans.*:Grading.best.*'
FEW="20x301x777_ldb+3,3x517x1500_off+1,33x65x4099_ld+1,1x1030x33,64x200x300_off+1,17x130x1000"
step rc07 80 compute-sanitizer --tool racecheck --error-exitcode 9 $H/z/labs/lab07_solution --variant best --verify-only --shapes $FEW
step ic07 50 compute-sanitizer --tool initcheck --error-exitcode 9 $H/z/labs/lab07_solution --variant best --verify-only --shapes $FEW
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/a.txz -C $R .
