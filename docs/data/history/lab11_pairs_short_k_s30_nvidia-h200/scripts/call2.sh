#!/usr/bin/env bash
# Session 30, call 2. Issue 54: the kept build (the pairs of call 1 reverted) with the DCGAN's new test cases
# (blocks walking many items), compute-sanitizer on them, lab 10's MPI checks at each precision (carried Open MPI),
# one round of the DCGAN beside HEAD's build. Issue 53: the short-K kernel's element copies split around the
# multiply (new) against HEAD (base): lab 11's grading tests and memcheck on new; bench_short_k11 at the 72 shapes
# the program ran on the short-K kernel in session 29, new and base interleaved twice; both random-shapes seeds of
# lab 11, new then base.
set -u
S=$(mktemp -d); O=$S/o; mkdir -p $O/runs
tar -xJf pack/bin.tar.xz -C $S
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $O/environment.txt 2>&1
date -u >> $O/environment.txt
pack_out() { cp $O/steps.txt $OUT/ 2>/dev/null; tar -cJf $OUT/call2.tar.xz -C $O --exclude='*.cldw' --exclude='*.cldz' .; }
step() { local name=$1 limit=$2; shift 2; local t=$SECONDS; timeout $limit "$@" > $O/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $((SECONDS-t)) s $(grep -E '^\[  (PASSED|FAILED) ' $O/$name.txt | tr '\n' ' ')" | tee -a $O/steps.txt; pack_out; return $rc; }
T=$S/new/tests
step tests_dcgan 150 $T/lab11_dcgan_solution --gtest_brief=1
step tests_dcgan_student 120 $T/lab11_dcgan_student --gtest_brief=1
step memcheck_dcgan 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_dcgan_solution --gtest_brief=1 --gtest_filter='*SubpixelLayer*many_items*'
step grading11 200 $T/lab11_grading_solution --gtest_brief=1
step grading11_student 120 $T/lab11_grading_student --gtest_brief=1
step memcheck_short_k 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T/lab11_grading_solution --gtest_brief=1 --gtest_filter='*hort*:*Best*'
for round in 1 2; do for v in new base; do
  step short_k11_${v}_$round 60 $S/$v/bench_short_k11 $(cat pack/shapes72.txt)
done; done
for seed in 4998064687210808757 8444672377437012093; do
  for side in new base; do
    t=$SECONDS; timeout 120 scripts/gemm-random-shapes --labs 11 --seed $seed $S/$side $S/rs_${side}_$seed > $O/rs_${side}_$seed.log 2>&1
    echo "rs_${side}_$seed rc=$? $((SECONDS-t)) s" | tee -a $O/steps.txt
    for f in $S/rs_${side}_$seed/*; do [ -f $f ] && cp $f $O/rs_${side}_${seed}_$(basename $f); done; pack_out
  done
done
W=$PWD/labs/09_dcgan/fashion_mnist.cldw
for v in base new; do for prec in bf16 tf32; do
  step runs/${v}_${prec}_1 40 $S/$v/labs/dcgan --weights $W --precision $prec --num 5248 --batch 5248 --end-to-end-repetitions 0 --check-images 2
done; done
M=$S/mpiroot; . $M/env.sh
step mpi_checks 120 tests/cli/mpi_checks.sh $S/new/labs/dcgan_mpi $S/new/labs/lab10_solution $S/new/labs/dcgan_multi_gpu
pack_out
