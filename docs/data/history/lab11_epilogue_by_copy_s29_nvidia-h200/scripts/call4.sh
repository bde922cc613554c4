#!/usr/bin/env bash
# Session 29, call 4: bn_relu_pair, fixed_bytes_of and the launcher's staging test (new, 57a2929) against
# 980250f's build (prev): the DCGAN tests and memcheck/racecheck on new, 2 interleaved rounds of the
# BF16 DCGAN at batch 5248.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call4.tar.xz -C $O .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
T=$S/new/tests
step tests_dcgan 120 $T/lab11_dcgan_solution --gtest_brief=1
step memcheck_dcgan 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_dcgan 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*turned*:*SubpixelLayer*bytes_in*'
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2; do for v in prev new; do
  step runs/${v}_bf16_$round 40 $S/$v/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
done; done
pack_out
