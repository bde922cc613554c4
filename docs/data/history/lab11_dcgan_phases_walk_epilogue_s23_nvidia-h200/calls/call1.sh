#!/bin/bash
# Session 23, call 1 (issue 54): lab 11's sub-pixel kernel, the tile order (a tile's four phases in a
# row) and the producer's walk (no divisions a stage) beside main's, interleaved; the DCGAN tests and
# compute-sanitizer on the build with both; lab 10's MPI program at each precision (carried Open MPI);
# Nsight Compute's source view of the wide layers.
# (As it ran. Its timed runs failed at once, rc 127: `timeout` cannot run the shell function
# run_dcgan; call 2 timed them through run_dcgan.sh. The MPI check's extra-rank case failed on the
# GPU machine's other PMIx plugins writing to stderr: env.sh quietens them from call 2 on.)
set -u
T0=$(date +%s); BUDGET=570
X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
run_dcgan() { $X/p/$1/dcgan --weights $W --precision $2 --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2; }
for round in 1 2 3; do
  for v in base order walk both; do
    for prec in bf16 tf32; do step ${v}_${prec}_$round 30 run_dcgan $v $prec; done
  done
done
step tests_both 120 $X/p/both/lab11_dcgan_solution
step memcheck_both 150 compute-sanitizer --tool memcheck $X/p/both/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_both 90 compute-sanitizer --tool racecheck $X/p/both/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned_partial*:*SubpixelLayer*halo_partial*'
M=$X/mpiroot; . $M/env.sh
step mpi_checks 150 tests/cli/mpi_checks.sh $X/p/both/dcgan_mpi $X/p/lab10_solution $X/p/both/dcgan_multi_gpu
for v in both base; do
  step ncu_$v 100 ncu -k regex:subpixel_wgmma --launch-count 3 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis -f -o $R/ncu_$v $X/p/$v/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --min-time 0 --warmups 0 --end-to-end-repetitions 0 --check-images 1
  [ -f $R/ncu_$v.ncu-rep ] && { ncu -i $R/ncu_$v.ncu-rep --page details > $R/ncu_${v}_details.txt 2>&1; ncu -i $R/ncu_$v.ncu-rep --page source --csv --print-source sass > $R/ncu_${v}_source.csv 2>&1; }
done
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R --exclude='*.ncu-rep' .
