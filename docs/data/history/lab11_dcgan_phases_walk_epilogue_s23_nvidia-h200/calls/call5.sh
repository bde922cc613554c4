#!/bin/bash
# Session 23, call 5 (issue 54): the sub-pixel kernel's epilogue reading the batch norm's scales and
# shifts from shared memory (copied there first) beside the kept build (81115e0: read from global
# memory a chunk of 8 column pairs ahead), with one pair at a time (smem1) or a chunk of 8 (smem8);
# interleaved rounds; the DCGAN tests, memcheck and racecheck on both new builds.
set -u
T0=$(date +%s); BUDGET=400
export X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
export W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do
  for v in kept smem1 smem8; do
    for prec in bf16 tf32; do step ${v}_${prec}_$round 30 pack/run_dcgan.sh $v $prec; done
  done
done
for v in smem1 smem8; do
  step tests_$v 60 $X/p/$v/lab11_dcgan_solution
  step memcheck_$v 60 compute-sanitizer --tool memcheck $X/p/$v/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
  step racecheck_$v 60 compute-sanitizer --tool racecheck $X/p/$v/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned_partial*:*SubpixelLayer*halo_partial*'
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
