#!/bin/bash
# Session 23, call 2 (issue 54): lab 11's sub-pixel kernel, main's beside the tile order (a tile's four
# phases in a row), the producer's walk (no divisions a stage), both, and with the epilogue reading
# its scales and shifts a chunk ahead of its stores; interleaved rounds; the DCGAN tests and
# compute-sanitizer on the last build; lab 10's MPI checks again (the carried PMIx quietened);
# Nsight Compute's source view of the last build's wide layers.
set -u
T0=$(date +%s); BUDGET=570
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
  for v in base order walk both oepi epi; do
    for prec in bf16 tf32; do step ${v}_${prec}_$round 30 pack/run_dcgan.sh $v $prec; done
  done
done
step tests_epi 120 $X/p/epi/lab11_dcgan_solution
step tests_oepi 120 $X/p/oepi/lab11_dcgan_solution
step memcheck_epi 150 compute-sanitizer --tool memcheck $X/p/epi/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_epi 90 compute-sanitizer --tool racecheck $X/p/epi/lab11_dcgan_solution --gtest_filter='*SubpixelLayer*layer1_b9*:*SubpixelLayer*by_position*:*SubpixelLayer*turned_partial*:*SubpixelLayer*halo_partial*'
M=$X/mpiroot; . $M/env.sh
step mpi_checks 150 tests/cli/mpi_checks.sh $X/p/epi/dcgan_mpi $X/p/lab10_solution $X/p/epi/dcgan_multi_gpu
step ncu_epi 100 ncu -k regex:subpixel_wgmma --launch-count 3 --section SpeedOfLight --section WarpStateStats --section SourceCounters -f -o $R/ncu_epi $X/p/epi/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --min-time 0.001 --warmups 0 --end-to-end-repetitions 0 --check-images 1
[ -f $R/ncu_epi.ncu-rep ] && { ncu -i $R/ncu_epi.ncu-rep --page details > $R/ncu_epi_details.txt 2>&1; ncu -i $R/ncu_epi.ncu-rep --page source --csv --print-source sass > $R/ncu_epi_source.csv 2>&1; }
cp $R/log.txt $OUT/log.txt
tar cJf $OUT/out.txz -C $R --exclude='*.ncu-rep' .
