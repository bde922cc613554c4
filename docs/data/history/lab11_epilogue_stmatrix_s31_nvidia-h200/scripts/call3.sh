#!/usr/bin/env bash
# Session 31, call 3: the kept build (the sub-pixel epilogues through stmatrix): this GPU's ceilings,
# then scripts/lab11-dcgan-bench (BF16, TF32 and FP32 against PyTorch's best in the same call);
# lab 10's MPI checks at each precision (carried Open MPI); Nsight Compute of tconv2 and tconv3 in
# BF16, main's build (base) and the kept one (new).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call3.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' --exclude='*.cldi' --exclude='*.ncu-rep' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
step lab00 45 $S/new/labs/lab00_solution --results-dir $O/lab00
step lab11_ceiling 30 $S/new/labs/lab11_ceiling
step bench 400 scripts/lab11-dcgan-bench $S/new $O/bench
( M=$S/mpiroot; . $M/env.sh
  step mpi_checks 120 tests/cli/mpi_checks.sh $S/new/labs/dcgan_mpi $S/new/labs/lab10_solution $S/new/labs/dcgan_multi_gpu )
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for v in base new; do
  step ncu_$v 90 ncu -k regex:subpixel_wgmma --launch-skip 1 --launch-count 2 --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_barrier_per_warp_active.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed --csv --page raw $S/$v/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --warmups 0 --end-to-end-repetitions 0 --check-images 1
done
pack_out
