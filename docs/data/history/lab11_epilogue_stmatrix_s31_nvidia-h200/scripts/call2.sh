#!/usr/bin/env bash
# Session 31, call 2: the sub-pixel epilogues through stmatrix (new) beside main (base): tconv3 and
# tconv2 alone (tb_base, tb_stsm: random inputs, checksums of the outputs), then the DCGAN at batch
# 5248 interleaved; the DCGAN tests (solution, student) and compute-sanitizer on new.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
for round in 1 2 3; do
  for v in base stsm; do step runs/tb_${v}_$round 60 $S/tb/tb_$v 30; done
done
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do
  for v in base new; do
    for prec in bf16 tf32; do
      step runs/${v}_${prec}_$round 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
    done
  done
done
T=$S/new/tests
step tests_dcgan 150 $T/lab11_dcgan_solution --gtest_brief=1
step tests_dcgan_student 120 $T/lab11_dcgan_student --gtest_brief=1
step memcheck_dcgan 170 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_dcgan 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*layer2*:*SubpixelLayer*layer3*:*SubpixelLayer*turned*:*SubpixelLayer*halo*:*SubpixelLayer*bytes_in*:*SubpixelLayer*width64*'
pack_out
