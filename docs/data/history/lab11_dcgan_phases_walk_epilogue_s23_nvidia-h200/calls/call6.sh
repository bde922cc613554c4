#!/bin/bash
# Session 23, call 6 (issue 54): the kept sub-pixel kernel at 1f4e337 (call 3's, its epilogue reading the
# scales from shared memory): this GPU's ceilings (lab 00, lab11_ceiling),
# then scripts/lab11-dcgan-bench against PyTorch's best in the same call; the DCGAN tests,
# the student build's, compute-sanitizer, lab 10's MPI checks at each precision.
set -u
T0=$(date +%s); BUDGET=580
export X=$PWD/.bins; mkdir -p $X && tar xJf pack/bin.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib:${LD_LIBRARY_PATH:-}
R=$X/out; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local left=$(( BUDGET - ($(date +%s) - T0) ))
  (( left < limit )) && limit=$left; (( limit < 5 )) && { echo "$name skipped (no time)" | tee -a $R/log.txt; return; }
  local t0=$(date +%s); timeout $limit "$@" > $R/$name.txt 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/log.txt; }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
step lab00 45 $X/p/labs/lab00_solution --results-dir $R/lab00
step lab11_ceiling 30 $X/p/labs/lab11_ceiling
step bench 330 scripts/lab11-dcgan-bench $X/p $R/bench
step tests 60 $X/p/tests/lab11_dcgan_solution
step memcheck 60 compute-sanitizer --tool memcheck $X/p/tests/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck 60 compute-sanitizer --tool racecheck $X/p/tests/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned_partial*:*SubpixelLayer*halo_partial*'
step tests_student 60 $X/p/tests/lab11_dcgan_student
M=$X/mpiroot; . $M/env.sh
step mpi_checks 60 tests/cli/mpi_checks.sh $X/p/labs/dcgan_mpi $X/p/labs/lab10_solution $X/p/labs/dcgan_multi_gpu
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R .
