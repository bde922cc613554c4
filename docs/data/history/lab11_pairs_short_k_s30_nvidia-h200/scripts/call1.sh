#!/usr/bin/env bash
# Session 30, call 1 (issue 54): step 7's blocks in pairs sharing B's copies (new) beside HEAD 86e1454's
# build (base), interleaved, the DCGAN at batch 5248; the DCGAN tests (solution, student), compute-sanitizer
# on the pair cases, lab 10's MPI checks at each precision (carried Open MPI), Nsight Compute's tensor-pipe
# and L2 figures of the three wide layers on both builds; then, if new's DCGAN tests passed, this GPU's
# ceilings and scripts/lab11-dcgan-bench (PyTorch's best in the same call).
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call1.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' --exclude='*.ncu-rep' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
T=$S/new/tests
step tests_dcgan 150 $T/lab11_dcgan_solution --gtest_brief=1; dcgan_rc=$?
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for round in 1 2 3; do for v in base new; do for prec in bf16 tf32; do
  step runs/${v}_${prec}_$round 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
done; done; done
step memcheck_dcgan 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*:*TensorCoreGenerator*b7*'
step racecheck_dcgan 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*pairs*:*SubpixelLayer*layer1_b9*:*SubpixelLayer*turned_partial*'
step tests_dcgan_student 120 $T/lab11_dcgan_student --gtest_brief=1
M=$S/mpiroot; . $M/env.sh
step mpi_checks 120 tests/cli/mpi_checks.sh $S/new/labs/dcgan_mpi $S/new/labs/lab10_solution $S/new/labs/dcgan_multi_gpu
for v in base new; do
  step ncu_$v 90 ncu -k regex:subpixel_wgmma --launch-count 3 --metrics gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,launch__grid_size,launch__cluster_dim_x --csv --page raw $S/$v/labs/dcgan --weights $W --precision bf16 --num 5248 --batch 5248 --repetitions 1 --warmups 0 --end-to-end-repetitions 0 --check-images 1
done
if [ $dcgan_rc -eq 0 ]; then
  step lab00 45 $S/new/labs/lab00_solution --results-dir $O/lab00
  step lab11_ceiling 30 $S/new/labs/lab11_ceiling
  step bench 330 scripts/lab11-dcgan-bench $S/new $O/bench
fi
pack_out
