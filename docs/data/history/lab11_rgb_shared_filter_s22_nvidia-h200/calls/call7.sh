#!/bin/bash
# Session 22, call 7 (issue 54): the RGB kernel's registers budgeted by the blocks its shared memory
# allows (kBlocksPerSm of RgbPlan) instead of 3 for every instance: beside call 4's build and the old
# kernel; the lab's DCGAN tests, the student build's RGB tests, memcheck on the RGB cases.
set -u
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
step rgb_bench 60 $X/p/exp/rgb_bench
step tests_solution 60 $X/p/tests/lab11_dcgan_solution
step tests_student_rgb 30 $X/p/tests/lab11_dcgan_student --gtest_filter='*RgbLayer*'
step memcheck_rgb 60 compute-sanitizer --tool memcheck $X/p/tests/lab11_dcgan_solution --gtest_filter='*RgbLayer*'
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
